package sim

import (
	"fmt"
	"math"
	"testing"

	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
)

// phaseSpan is when lease name held kind on any host: "start-end", to the
// millisecond ("" when never).
func phaseSpan(r *report.Report, name, kind string) string {
	id := uint64(0)
	for _, l := range r.Leases {
		if l.Name == name {
			id = l.ID
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, iv := range r.Gantt {
		if iv.Lease == id && iv.Kind == kind {
			lo, hi = math.Min(lo, iv.StartS), math.Max(hi, iv.EndS)
		}
	}
	if math.IsInf(lo, 1) {
		return ""
	}
	return fmt.Sprintf("%.3f-%.3f", lo, hi)
}

// The example (docs/models.md §2): a best-effort lease of 140 VMs
// of 1024 MB is suspended for an advance reservation of the same 140 hosts
// at 3600 s. Images are saved and read at 50 MB/s, t_s = t_r = 1024/50 =
// 20.48 s a VM, with no pause or delta.
//
//   - shared storage: the 140 VMs one after the other, 140*20.48 = 2867.2 s:
//     suspended over [732.8, 3600), resumed over [4600, 7467.2); 10000 -
//     732.8 = 9267.2 s left: it ends at 16734.4. h = 2*2867.2 = 5734.4 s.
//   - local storage, one VM a host: 20.48 s: suspended over [3579.52,
//     3600), resumed over [4600, 4620.48); 10000 - 3579.52 = 6420.48 s
//     left: it ends at 11040.96. h = 2*20.48 = 40.96 s.
//   - local storage, 70 two-core hosts of two VMs each: each host saves its
//     two one after the other, 40.96 s: suspended over [3559.04, 3600),
//     resumed over [4600, 4640.96), ends at 4640.96 + 6440.96 = 11081.92.
//     h = 81.92 s.
func TestStorageSuspendResume(t *testing.T) {
	cases := []struct {
		storage         scheduler.Storage
		hosts           int
		cpu             int64
		suspend, resume string
		overhead, endBE float64
	}{
		{scheduler.StorageShared, 140, 100, "732.800-3600.000", "4600.000-7467.200", 5734.4, 16734.4},
		{scheduler.StorageLocal, 140, 100, "3579.520-3600.000", "4600.000-4620.480", 40.96, 11040.96},
		{scheduler.StorageLocal, 70, 200, "3559.040-3600.000", "4600.000-4640.960", 81.92, 11081.92},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d hosts", c.storage, c.hosts), func(t *testing.T) {
			cfg := scheduler.DefaultConfig()
			cfg.CheckInvariants = true
			o := &cfg.Overheads
			o.SuspendRate, o.ResumeRate, o.Pause, o.Delta, o.Storage = 50, 50, 0, 0, c.storage
			reqs := []scheduler.Request{
				lease("BE").VMs(140).For(10000).Build(),
				lease("AR").VMs(140).At(100).AR(3600).For(1000).Build(),
			}
			r, err := Run(Config{Cluster: Cluster{Hosts: c.hosts, CPU: c.cpu, Memory: 4096}, Scheduler: cfg}, reqs)
			if err != nil {
				t.Fatal(err)
			}
			if got := phaseSpan(r, "BE", "suspend"); got != c.suspend {
				t.Errorf("suspend %s, want %s", got, c.suspend)
			}
			if got := phaseSpan(r, "BE", "resume"); got != c.resume {
				t.Errorf("resume %s, want %s", got, c.resume)
			}
			be := leaseByName(t, r, "BE")
			if be.State != "done" || be.EndS == nil || round3(*be.EndS) != c.endBE {
				t.Errorf("BE %s ending at %v, want done at %v", be.State, be.EndS, c.endBE)
			}
			if got := round3(be.OverheadS); got != c.overhead {
				t.Errorf("BE overhead %v, want %v", got, c.overhead)
			}
		})
	}
}

// TestPropertiesLocalStorage checks every property of property_test.go on
// the first seeds with overheads.storage local (migration yes-notransfer,
// which needs shared storage, becomes yes): suspensions and resumptions
// timed per host must keep every host within capacity, every image
// operation clear of the others, and every reservation on time.
func TestPropertiesLocalStorage(t *testing.T) {
	seeds, size := 50, propFull
	if testing.Short() {
		seeds, size = 15, propShort
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		for _, mode := range propModes {
			sz := size
			sz.mode = mode
			t.Run(fmt.Sprintf("%s/seed=%d", mode, seed), func(t *testing.T) {
				c := propGen(seed, sz)
				s := &c.cfg.Scheduler
				s.Overheads.Storage = scheduler.StorageLocal
				if s.Migration == scheduler.MigrationNoTransfer {
					s.Migration = scheduler.MigrationYes
				}
				t.Logf("%v storage=local", c)
				propReport(t, propCheck(c, ""), "")
			})
		}
	}
}
