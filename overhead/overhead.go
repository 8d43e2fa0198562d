package overhead

import (
	"math"
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
}

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
// the given memory sizes.
func (o Params) Suspend(mems []int64) time.Duration {
	d := time.Duration(len(mems))*o.Pause + o.Delta
	for _, m := range mems {
		d += o.SuspendVM(m)
	}
	return d
}

// Resume is L^r = v*t_p + sum_i t_r^i.
func (o Params) Resume(mems []int64) time.Duration {
	d := time.Duration(len(mems)) * o.Pause
	for _, m := range mems {
		d += o.ResumeVM(m)
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
