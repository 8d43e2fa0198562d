package sim

import (
	"os"
	"strconv"
	"testing"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/workgen"
)

func TestTmpProf(t *testing.T) {
	if os.Getenv("TMPPROF") == "" {
		t.Skip()
	}
	seed, _ := strconv.Atoi(os.Getenv("TMPSEED"))
	w, err := workgen.Generate("lublin99", uint64(seed), map[string]string{
		"requests": "3000", "days": "14", "hosts": "32", "local_share": os.Getenv("TMPSHARE")})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Cluster: Cluster{Hosts: 32, CPU: w.HostCPU, Memory: w.HostMemory}, Scheduler: scheduler.DefaultConfig()}
	cfg.Scheduler.Policy = preempt.Policy(os.Getenv("TMPPOL"))
	r, err := Run(cfg, w.Requests)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r.Metrics.Completed)
}
