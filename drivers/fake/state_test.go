package fake

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers"
)

// New on the state file of a closed driver sees the same cluster.
func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "fake.json")
	e := newEnv(t, func(c *Config) { c.StateFile = file })
	e.settle(e.start(vms(1, "h1", 1024, 1024)))
	e.settle(e.start(vms(2, "h2", 512)))
	e.settle(e.suspend(vms(2, "h2", 512)))
	e.settle(e.start(vms(3, "h1", 256)))
	e.settle(e.stop(vms(3, "h1", 256)))
	e.settle(e.start(vms(4, "h3", 256)))
	e.d.AddForeignVM("h2", "backup-job")
	if err := e.d.Inject(Fault{Op: OpHostLoss, Host: "h3"}); err != nil {
		t.Fatal(err)
	}
	e.event() // h3 down
	e.event() // bora-4-0 crashed
	wantList := []string{"bora-1-0@h1:running", "bora-1-1@h1:running", "bora-2-0@h2:saved", "bora-3-0@h1:stopped"}
	if got := e.list(); !slices.Equal(got, wantList) {
		t.Fatalf("before: %v, want %v", got, wantList)
	}
	e.d.Close()

	e.open()
	if got := e.list(); !slices.Equal(got, wantList) {
		t.Errorf("after reopening: %v, want %v", got, wantList)
	}
	hs, _ := e.d.Hosts(t.Context())
	if hs[2].Up || !hs[0].Up || !hs[1].Up {
		t.Errorf("Hosts after reopening: %+v, want h3 down", hs)
	}
	// The foreign VM is still there, though not listed.
	e.d.mu.Lock()
	_, foreign := e.d.vms["backup-job"]
	e.d.mu.Unlock()
	if !foreign {
		t.Error("foreign VM lost")
	}
	// The file is complete JSON and no temporary file is left.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc stateDoc
	if err := json.Unmarshal(data, &doc); err != nil || !slices.Equal(doc.HostsDown, []string{"h3"}) {
		t.Errorf("state file: %v, hosts down %v", err, doc.HostsDown)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d files, want only the state file", len(entries))
	}
	// The reopened driver carries on: resume lease 2 where it was saved.
	if err := e.timed(63059187192*time.Nanosecond, e.resume(vms(2, "h2", 512))); err != nil {
		// 512/8.12 = 63.054187192 s + t_p 0.005 s
		t.Fatal(err)
	}
}

// Run time keeps counting across a daemon crash: the VM kept running
// while no driver watched it.
func TestStateKeepsRunTime(t *testing.T) {
	file := filepath.Join(t.TempDir(), "fake.json")
	e := newEnv(t, func(c *Config) { c.StateFile = file })
	e.d.SetRunTime(1, 10*time.Minute)
	e.settle(e.start(vms(1, "h1", 1024)))
	running := e.sim.Now() // 0:00:45
	e.sim.Set(running.Add(3 * time.Minute))
	e.d.Close()
	e.sim.Set(running.Add(5 * time.Minute)) // the daemon is down for 2 min
	// The closed driver's timer for the exit is still pending in the
	// clock; wait for the new driver's own before moving the clock (its
	// timer loop reads the clock, then arms a timer that long after: a
	// clock moved in between would arm it late).
	before := e.sim.Waiting()
	e.open()
	waitFor(t, "the reopened driver's timer", func() bool { return e.sim.Waiting() > before })
	exit := running.Add(10 * time.Minute)
	e.waitNextTimer(exit)
	e.sim.Set(exit.Add(-time.Nanosecond))
	e.noEvent()
	e.sim.Set(exit)
	if ev := e.event(); ev.Kind != drivers.VMExited || ev.Detail != "ran 10m0s" {
		t.Errorf("event %+v, want an exit after 10 min", ev)
	}
}

// TestStateFileErrors: a bad state file is refused with its path and
// the problem (a truncated or garbage file with the decode error), and
// New returns a nil driver that Close accepts (daemon.New closes what it
// got; the nil driver used to panic there and hide the error).
func TestStateFileErrors(t *testing.T) {
	valid := `{"version":1,"vms":[{"name":"bora-1-0","host":"h1","state":"running","run_ns":0}]}`
	cases := []struct {
		name, content, want string
	}{
		{"empty", "", "the file is empty (0 bytes)"},
		{"truncated", valid[:len(valid)/2], "decode: unexpected EOF"},
		{"garbage", "\x00\x17\xfe garbage", "decode: invalid character"},
		{"not JSON", "{", "decode"},
		{"unknown key", `{"version":1,"vms":[],"extra":1}`, "unknown field"},
		{"other version", `{"version":9,"vms":[]}`, "version 9"},
		{"bad state", `{"version":1,"vms":[{"name":"bora-1-0","host":"h1","state":"zombie","run_ns":0}]}`, `unknown state "zombie"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "fake.json")
			if err := os.WriteFile(file, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := testConfig()
			cfg.StateFile = file
			d, err := New(cfg, newSim(), nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), file) {
				t.Fatalf("err = %v, want one mentioning %q and %s", err, c.want, file)
			}
			if d != nil {
				t.Fatalf("New returned a driver with its error")
			}
			if err := d.Close(); err != nil {
				t.Errorf("Close of the nil driver: %v", err)
			}
		})
	}
}

// A VM on a host no longer configured is dropped on load.
func TestStateDropsUnconfiguredHosts(t *testing.T) {
	file := filepath.Join(t.TempDir(), "fake.json")
	e := newEnv(t, func(c *Config) { c.StateFile = file })
	e.settle(e.start(vms(1, "h3", 256)))
	e.settle(e.start(vms(2, "h1", 256)))
	e.d.Close()
	e.cfg.Hosts = e.cfg.Hosts[:2]
	e.open()
	if got, want := e.list(), []string{"bora-2-0@h1:running"}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
}
