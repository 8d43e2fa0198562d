package overhead

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bora-sched/bora/fielderr"
)

// Params holds the parameters of the overhead model (docs/models.md §2).
// Rates and bandwidth are MB/s.
type Params struct {
	SuspendRate float64       `yaml:"suspend_rate"` // s: memory written per second when suspending
	ResumeRate  float64       `yaml:"resume_rate"`  // r: memory read back per second when resuming
	Pause       time.Duration `yaml:"pause"`        // t_p: pause (= unpause) time per VM
	Delta       time.Duration `yaml:"delta"`        // delta: rescheduling time per suspension
	Bandwidth   float64       `yaml:"bandwidth"`    // b: MB/s when copying a memory image to another host
	Stop        time.Duration `yaml:"stop"`         // t_stop: time to stop one VM of a cancelled lease
	Shutdown    time.Duration `yaml:"shutdown"`     // time reserved after a lease's run to shut its VMs down
	Enactment   time.Duration `yaml:"enactment"`    // time reserved before a lease's run to start its VMs
	// SuspendOverride and ResumeOverride, when positive, replace mem/s and
	// mem/r by a fixed time per VM (Haizea's override-suspend-time and
	// override-resume-time).
	SuspendOverride time.Duration `yaml:"override_suspend_time"`
	ResumeOverride  time.Duration `yaml:"override_resume_time"`
	// Storage is where suspend images are written: shared (one store for
	// every host: a lease's VMs are saved one after the other) or local
	// (each host's own disk: hosts save in parallel). Empty means shared.
	Storage Storage `yaml:"storage"`
}

// Storage says where suspend images are written (docs/models.md §2).
type Storage string

// The storage models.
const (
	// StorageShared: every host writes to the same shared storage, so a
	// lease's VMs are suspended and resumed one after the other (the
	// source's model).
	StorageShared Storage = "shared"
	// StorageLocal: each host writes to its own disk, so VMs on different
	// hosts are suspended and resumed in parallel, those on one host one
	// after the other (Haizea's model).
	StorageLocal Storage = "local"
)

// ParseStorage reads a storage model: shared or local.
func ParseStorage(v string) (Storage, error) {
	switch s := Storage(v); s {
	case StorageShared, StorageLocal:
		return s, nil
	}
	return "", fmt.Errorf("unknown value %q (want %s)", v, strings.Join([]string{string(StorageShared), string(StorageLocal)}, ", "))
}

// Local reports whether images are written to each host's own disk.
func (o Params) Local() bool { return o.Storage == StorageLocal }

// DefaultParams are the reference values of docs/models.md §2:
// s = 6.36 MB/s, r = 8.12 MB/s, t_p = 5 ms, delta = 2.3 s, and a bandwidth
// that copies a 1024 MB image in 160.2 s (1024/160.2 = 6.392 MB/s).
func DefaultParams() Params {
	return Params{
		SuspendRate: 6.36,
		ResumeRate:  8.12,
		Pause:       5 * time.Millisecond,
		Delta:       2300 * time.Millisecond,
		Bandwidth:   1024 / 160.2,
		Storage:     StorageShared,
	}
}

// Validate reports the first parameter that cannot be used, as a
// *fielderr.Error naming its key ("overheads.suspend_rate").
func (o Params) Validate() error {
	switch {
	case o.SuspendRate <= 0 && o.SuspendOverride <= 0:
		return fielderr.New("overheads.suspend_rate", "must be positive, got %g", o.SuspendRate)
	case o.ResumeRate <= 0 && o.ResumeOverride <= 0:
		return fielderr.New("overheads.resume_rate", "must be positive, got %g", o.ResumeRate)
	case o.Bandwidth <= 0:
		return fielderr.New("overheads.bandwidth", "must be positive, got %g", o.Bandwidth)
	}
	if o.Storage != "" {
		if _, err := ParseStorage(string(o.Storage)); err != nil {
			return fielderr.New("overheads.storage", "%v", err)
		}
	}
	times := []struct {
		key string
		d   time.Duration
	}{{"pause", o.Pause}, {"delta", o.Delta}, {"stop", o.Stop}, {"shutdown", o.Shutdown}, {"enactment", o.Enactment},
		{"override_suspend_time", o.SuspendOverride}, {"override_resume_time", o.ResumeOverride}}
	for _, t := range times {
		if t.d < 0 {
			return fielderr.New("overheads."+t.key, "must not be negative, got %s", t.d)
		}
	}
	return nil
}

// Seconds is s seconds as a Duration, rounded to the nanosecond: the
// model's times and the settings written in seconds use it alike.
func Seconds(s float64) time.Duration {
	return time.Duration(math.Round(s * float64(time.Second)))
}

// SuspendVM is t_s = mem / s for one VM of mem MB.
func (o Params) SuspendVM(mem int64) time.Duration {
	if o.SuspendOverride > 0 {
		return o.SuspendOverride
	}
	return Seconds(float64(mem) / o.SuspendRate)
}

// ResumeVM is t_r = mem / r for one VM of mem MB.
func (o Params) ResumeVM(mem int64) time.Duration {
	if o.ResumeOverride > 0 {
		return o.ResumeOverride
	}
	return Seconds(float64(mem) / o.ResumeRate)
}

// CopyVM is t_copy = mem / b for one VM of mem MB.
func (o Params) CopyVM(mem int64) time.Duration {
	return Seconds(float64(mem) / o.Bandwidth)
}

// Suspend is L^s = v*t_p + sum_i t_s^i + delta for a lease whose VMs have
// the given memory sizes: one after the other, as on shared storage or on
// a single host. With the VMs' hosts known, SuspendHosts is exact under
// either storage model; Suspend is its upper bound.
func (o Params) Suspend(mems []int64) time.Duration {
	return o.SuspendHosts([][]int64{mems})
}

// Resume is L^r = v*t_p + sum_i t_r^i, one VM after the other (the upper
// bound of ResumeHosts).
func (o Params) Resume(mems []int64) time.Duration {
	return o.ResumeHosts([][]int64{mems})
}

// SuspendHosts is L^s for a lease whose VMs' memory sizes are given
// grouped by host. Shared storage: v*t_p + sum_i t_s^i + delta, every VM
// after the other. Local storage: max over hosts h of (v_h*t_p + sum of
// t_s^i over h's VMs) + delta, the hosts in parallel.
func (o Params) SuspendHosts(byHost [][]int64) time.Duration {
	return o.span(byHost, true) + o.Delta
}

// ResumeHosts is L^r for VMs grouped by host: v*t_p + sum_i t_r^i on
// shared storage, max over hosts of (v_h*t_p + sum over h of t_r^i) on
// local storage.
func (o Params) ResumeHosts(byHost [][]int64) time.Duration {
	return o.span(byHost, false)
}

// span is how long suspending (else resuming) the VMs grouped by host
// takes, a pause each: each host's VMs one after the other, the hosts one
// after the other (shared storage, as Span) or in parallel (local).
func (o Params) span(byHost [][]int64, suspend bool) time.Duration {
	var d time.Duration
	for _, mems := range byHost {
		t := time.Duration(len(mems)) * o.Pause
		for _, m := range mems {
			if suspend {
				t += o.SuspendVM(m)
			} else {
				t += o.ResumeVM(m)
			}
		}
		if o.Local() {
			d = max(d, t)
		} else {
			d += t
		}
	}
	return d
}

// Span is how long operations on several hosts last, given each host's
// own time: their sum on shared storage (one store serves them one after
// the other), their maximum on local storage (the hosts in parallel).
func (o Params) Span(perHost []time.Duration) time.Duration {
	var d time.Duration
	for _, t := range perHost {
		if o.Local() {
			d = max(d, t)
		} else {
			d += t
		}
	}
	return d
}

// Copy is sum_j t_copy^j: the images copied one after the other.
func (o Params) Copy(mems []int64) time.Duration {
	var d time.Duration
	for _, m := range mems {
		d += o.CopyVM(m)
	}
	return d
}

// Cancel is h(L) = v*t_stop for a cancellable lease.
func (o Params) Cancel(vms int) time.Duration {
	return time.Duration(vms) * o.Stop
}

// SuspendResume is h(L) = 2*v*t_p + delta + sum_i (t_s^i + t_r^i) for a
// suspendable lease.
func (o Params) SuspendResume(mems []int64) time.Duration {
	return o.Suspend(mems) + o.Resume(mems)
}

// SuspendResumeHosts is h(L) = L^s + L^r for a suspendable lease whose
// VMs are grouped by host, resumed with the same grouping.
func (o Params) SuspendResumeHosts(byHost [][]int64) time.Duration {
	return o.SuspendHosts(byHost) + o.ResumeHosts(byHost)
}

// MigrateHosts is h(L) for a migratable lease whose VMs are grouped by
// host. Shared storage: Migrate over all the VMs. Local storage: the
// phases bora reserves, end to end: L^s, the copies one after the other,
// then L^r with the same grouping.
func (o Params) MigrateHosts(byHost [][]int64) time.Duration {
	if !o.Local() {
		if len(byHost) == 1 {
			return o.Migrate(byHost[0])
		}
		var all []int64
		for _, mems := range byHost {
			all = append(all, mems...)
		}
		return o.Migrate(all)
	}
	var copies time.Duration
	vms := 0
	for _, mems := range byHost {
		copies += o.Copy(mems)
		vms += len(mems)
	}
	if vms == 0 {
		return 0
	}
	return o.SuspendHosts(byHost) + copies + o.ResumeHosts(byHost)
}

// Migrate is the migratable preemption overhead of docs/models.md §2:
//
//	h(L) = sum_j t_copy^j + t_s^1 + sum_{j=2..v} max(t_s^j, t_r^{j-1}) + t_r^v + 2*v*t_p + delta
//
// VM j is suspended on the source while VM j-1 is resumed on the
// destination; the copies are sequential.
func (o Params) Migrate(mems []int64) time.Duration {
	v := len(mems)
	if v == 0 {
		return 0
	}
	d := o.Copy(mems) + o.SuspendVM(mems[0]) + o.ResumeVM(mems[v-1])
	for j := 1; j < v; j++ {
		d += max(o.SuspendVM(mems[j]), o.ResumeVM(mems[j-1]))
	}
	return d + 2*time.Duration(v)*o.Pause + o.Delta
}
