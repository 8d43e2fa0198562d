package sim

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// TestStepperMatchesRun: a cluster stepped by a gateway that hands it
// every external request at its arrival (after the local ones of that
// time) reports exactly what Run reports for the whole trace: the same
// leases, Gantt and metrics, on 40 random cases of the property test
// (every mode). It fails if AdvanceTo opened an event at a time Run has
// none, took an arrival in a different order, or Finish lost the rest.
func TestStepperMatchesRun(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		c := propGen(seed, propShort)
		switch seed % 3 {
		case 1:
			c = propGen(seed, propSize{minLeases: 10, maxLeases: 30, minHosts: 3, maxHosts: 6, mode: "preempt"})
		case 2:
			c = propGen(seed, propSize{minLeases: 10, maxLeases: 30, minHosts: 3, maxHosts: 6, mode: "backfill"})
		}
		want, err := Run(c.cfg, c.reqs)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		var local, ext []scheduler.Request
		for _, r := range c.reqs {
			if r.Origin == scheduler.External {
				ext = append(ext, r)
			} else {
				local = append(local, r)
			}
		}
		st, err := NewStepper(c.cfg, local)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ext {
			if err := st.AdvanceTo(Epoch.Add(r.Arrival)); err != nil {
				t.Fatalf("%v: %v", c, err)
			}
			if ref, err := st.Submit(r); err != nil || ref != nil {
				t.Fatalf("%v: submit %s: %v %v", c, r.Name, ref, err)
			}
		}
		got, err := st.Finish(context.Background())
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		got.Metrics.WallSeconds, want.Metrics.WallSeconds = 0, 0
		if !reflect.DeepEqual(got.Leases, want.Leases) || !reflect.DeepEqual(got.Gantt, want.Gantt) || !reflect.DeepEqual(got.Metrics, want.Metrics) {
			t.Errorf("%v: stepped run differs from Run:\n got %+v\nwant %+v", c, got.Metrics, want.Metrics)
		}
	}
}

// TestStepperErrors: Submit before AdvanceTo and a step back are errors.
func TestStepperErrors(t *testing.T) {
	st, err := NewStepper(Config{Cluster: Cluster{Hosts: 1, CPU: 100, Memory: 1024}, Scheduler: scheduler.DefaultConfig()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Submit(lease("A").Build()); !errors.Is(err, ErrNotOpen) {
		t.Errorf("submit before AdvanceTo: %v, want ErrNotOpen", err)
	}
	if err := st.AdvanceTo(Epoch.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := st.AdvanceTo(Epoch); !errors.Is(err, ErrStepBack) {
		t.Errorf("step back: %v, want ErrStepBack", err)
	}
}
