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

// TestStorageModels works the example by hand: a lease of 140 VMs
// of 1024 MB, saved at 50 MB/s (t_s = 1024/50 = 20.48 s a VM), no pause
// or delta.
func TestStorageModels(t *testing.T) {
	shared := Params{SuspendRate: 50, ResumeRate: 50, Bandwidth: 50, Storage: StorageShared}
	local := shared
	local.Storage = StorageLocal
	one := func(hosts, per int) [][]int64 { // hosts hosts of per VMs each
		g := make([][]int64, hosts)
		for i := range g {
			for j := 0; j < per; j++ {
				g[i] = append(g[i], 1024)
			}
		}
		return g
	}
	withPause := local
	withPause.Pause, withPause.Delta = 5*time.Millisecond, 2300*time.Millisecond
	cases := []struct {
		name string
		got  time.Duration
		want time.Duration
	}{
		// shared: 140 * 20.48 = 2867.2 s, however the VMs are spread
		{"shared, 140 hosts of 1 VM", shared.SuspendHosts(one(140, 1)), 2867200 * time.Millisecond},
		{"shared, 1 host of 140 VMs", shared.SuspendHosts(one(1, 140)), 2867200 * time.Millisecond},
		// local: the hosts in parallel, one VM each: 20.48 s
		{"local, 140 hosts of 1 VM", local.SuspendHosts(one(140, 1)), 20480 * time.Millisecond},
		// local, 70 hosts of 2 VMs: each host saves its two one after the
		// other: 2 * 20.48 = 40.96 s
		{"local, 70 hosts of 2 VMs", local.SuspendHosts(one(70, 2)), 40960 * time.Millisecond},
		// local, all on one host: no parallelism, as shared
		{"local, 1 host of 140 VMs", local.SuspendHosts(one(1, 140)), 2867200 * time.Millisecond},
		// local, uneven: a host of 3 VMs and one of 1: the longest, 3 * 20.48
		{"local, 3 + 1 VMs", local.SuspendHosts([][]int64{{1024, 1024, 1024}, {1024}}), 61440 * time.Millisecond},
		// local with t_p and delta: 20.48 + 0.005 + 2.3 = 22.785 s
		{"local, pause and delta", withPause.SuspendHosts(one(140, 1)), 22785 * time.Millisecond},
		// resume the same way: 20.48 s local, 2867.2 s shared
		{"local resume", local.ResumeHosts(one(140, 1)), 20480 * time.Millisecond},
		{"shared resume", shared.ResumeHosts(one(140, 1)), 2867200 * time.Millisecond},
		// h(L) of a suspension, local: 20.48 + 20.48
		{"local suspend+resume", local.SuspendResumeHosts(one(140, 1)), 40960 * time.Millisecond},
		// migrate, local, 2 hosts of 1 VM: suspend 20.48, copies 2 * 20.48,
		// resume 20.48: 81.92 s
		{"local migrate", local.MigrateHosts(one(2, 1)), 81920 * time.Millisecond},
		// migrate, shared, the pipeline: copies 40.96 + t_s 20.48 +
		// max(20.48, 20.48) + t_r 20.48 = 102.4 s
		{"shared migrate", shared.MigrateHosts(one(2, 1)), 102400 * time.Millisecond},
		// Span: the sum shared, the max local
		{"span shared", shared.Span([]time.Duration{time.Second, 3 * time.Second}), 4 * time.Second},
		{"span local", local.Span([]time.Duration{time.Second, 3 * time.Second}), 3 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if ms(c.got) != c.want {
				t.Errorf("got %v, want %v", ms(c.got), c.want)
			}
		})
	}
}

func TestStorageValidate(t *testing.T) {
	o := DefaultParams()
	if o.Storage != StorageShared {
		t.Errorf("default storage %q, want shared", o.Storage)
	}
	o.Storage = "nfs"
	err := o.Validate()
	if err == nil || !strings.Contains(err.Error(), `overheads.storage: unknown value "nfs"`) {
		t.Errorf("got %v, want an error naming overheads.storage", err)
	}
	for _, v := range []string{"shared", "local"} {
		if s, err := ParseStorage(v); err != nil || string(s) != v {
			t.Errorf("ParseStorage(%q) = %q, %v", v, s, err)
		}
	}
}
