package overhead

import (
	"strings"
	"testing"
	"time"
)

// ms rounds a duration to the millisecond for comparison with hand-worked
// values.
func ms(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

func TestOverheadFormulas(t *testing.T) {
	ref := DefaultParams()
	// The reference without pause and delta, as docs/models.md quotes it.
	bare := ref
	bare.Pause, bare.Delta = 0, 0
	cases := []struct {
		name string
		got  time.Duration
		want time.Duration
	}{
		// 1024 / 6.36 = 161.006 s
		{"t_s of 1024 MB", ref.SuspendVM(1024), 161006 * time.Millisecond},
		// 1024 / 8.12 = 126.108 s
		{"t_r of 1024 MB", ref.ResumeVM(1024), 126108 * time.Millisecond},
		// 1024 / (1024/160.2) = 160.2 s
		{"t_copy of 1024 MB", ref.CopyVM(1024), 160200 * time.Millisecond},
		// L^s = 1*0.005 + 161.006 + 2.3 = 163.311 s
		{"suspend one 1024 MB VM", ref.Suspend([]int64{1024}), 163311 * time.Millisecond},
		// L^r = 1*0.005 + 126.108 = 126.113 s
		{"resume one 1024 MB VM", ref.Resume([]int64{1024}), 126113 * time.Millisecond},
		// h = 2*1*0.005 + 2.3 + 161.006 + 126.108 = 289.424 s
		{"suspendable, one VM", ref.SuspendResume([]int64{1024}), 289425 * time.Millisecond},
		// h = 2*2*0.005 + 2.3 + 2*(161.006+126.108) = 576.549 s
		{"suspendable, two VMs", ref.SuspendResume([]int64{1024, 1024}), 576549 * time.Millisecond},
		// v = 1, no t_p or delta: 160.2 + 161.00629 + 126.10837 = 447.31466 s
		// (docs/models.md: 447.3 s)
		{"migratable, one VM, bare", bare.Migrate([]int64{1024}), 447315 * time.Millisecond},
		// v = 1 with t_p and delta: 447.31466 + 2*0.005 + 2.3 = 449.62466 s
		{"migratable, one VM", ref.Migrate([]int64{1024}), 449625 * time.Millisecond},
		// v = 2, 1024 and 2048 MB, bare:
		// copies 160.2 + 320.4 = 480.6; t_s^1 = 161.006;
		// max(t_s^2 = 322.013, t_r^1 = 126.108) = 322.013; t_r^2 = 252.217
		// total 480.6 + 161.006 + 322.013 + 252.217 = 1215.836 s
		{"migratable, two VMs, bare", bare.Migrate([]int64{1024, 2048}), 1215836 * time.Millisecond},
		// v = 3 of 1024 MB with t_p and delta: copies 3*160.2 = 480.6;
		// t_s^1 161.006; 2 * max(161.006, 126.108) = 322.013; t_r^3 126.108;
		// 6*0.005 + 2.3 = 2.33; total 1092.057 s
		{"migratable, three VMs", ref.Migrate([]int64{1024, 1024, 1024}), 1092057 * time.Millisecond},
		{"migratable, no VMs", ref.Migrate(nil), 0},
		// Cancel: v * t_stop, independent of memory: 3 * 1.5 = 4.5 s
		{"cancellable", Params{Stop: 1500 * time.Millisecond}.Cancel(3), 4500 * time.Millisecond},
		// The GlusterFS testbed: 40 MB/s both ways: 2048/40 = 51.2 s
		{"suspend at 40 MB/s", Params{SuspendRate: 40}.SuspendVM(2048), 51200 * time.Millisecond},
		// Haizea's override: a fixed time per VM, whatever the memory
		{"override suspend time", Params{SuspendRate: 1, SuspendOverride: 30 * time.Second}.Suspend([]int64{8192, 8192}), 60 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if ms(c.got) != c.want {
				t.Errorf("got %v, want %v", ms(c.got), c.want)
			}
		})
	}
}

func TestParamsValidate(t *testing.T) {
	bad := []struct {
		name string
		mod  func(*Params)
		want string
	}{
		{"zero suspend rate", func(o *Params) { o.SuspendRate = 0 }, "overheads.suspend_rate"},
		{"negative resume rate", func(o *Params) { o.ResumeRate = -1 }, "overheads.resume_rate"},
		{"zero bandwidth", func(o *Params) { o.Bandwidth = 0 }, "overheads.bandwidth"},
		{"negative delta", func(o *Params) { o.Delta = -time.Second }, "overheads"},
	}
	for _, c := range bad {
		o := DefaultParams()
		c.mod(&o)
		err := o.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error naming %s", c.name, err, c.want)
		}
	}
	if err := DefaultParams().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
