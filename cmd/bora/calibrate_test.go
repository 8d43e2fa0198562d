package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	lv "github.com/bora-sched/bora/drivers/libvirt"
)

// TestCalibrationStorage: the suggested config names the storage model the
// rates are for, and what a lease of 4 VMs of the test VM's 1024 MB, one a
// host, takes under it. Measured: 50 MB/s save, 40 MB/s restore, 5 ms
// pause, so t_s = 20.48 s, t_r = 25.6 s:
//
//	local:  suspend 20.48 + 0.005 = 20.485 s, resume 25.6 + 0.005 = 25.605 s
//	shared: suspend 4 * 20.485 = 81.94 s, resume 4 * 25.605 = 102.42 s
func TestCalibrationStorage(t *testing.T) {
	r := lv.Result{MemoryMB: 1024, SuspendRate: 50, ResumeRate: 40, Pause: 5 * time.Millisecond}
	cases := []struct {
		storage string
		want    []string
	}{
		{"local", []string{"    storage: local ", "# a lease of 4 VMs of 1024 MB, one a host: suspend 20.485s, resume 25.605s\n",
			"# (suspend with storage shared 1m21.94s, local 20.485s)\n"}},
		{"shared", []string{"    storage: shared ", "# a lease of 4 VMs of 1024 MB, one a host: suspend 1m21.94s, resume 1m42.42s\n"}},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		printCalibration(&buf, &calibrateFlags{host: "qemu:///system", storage: c.storage}, r)
		for _, w := range c.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", c.storage, w, buf.String())
			}
		}
	}
	_, err := calibrateConfig(&calibrateFlags{host: "qemu:///system", kernel: "/k", output: "table", storage: "nfs"})
	if want := `--storage: unknown value "nfs" (want shared, local)`; err == nil || err.Error() != want {
		t.Errorf("--storage nfs: got %v, want %s", err, want)
	}
}
