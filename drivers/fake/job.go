package fake

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/drivers"
)

// job is one operation in flight: what it needs at the end to still hold,
// how long it takes, and what it does.
type job struct {
	op     string
	leases []uint64 // of its VMs, for fault matching
	hosts  []string // every host involved; all must still be up at the end
	work   int      // VMs that need something done; 0 = nothing to do
	dur    time.Duration
	seen   []watch // VMs that must not change meanwhile
	freeze []*vm   // running VMs whose run clock stops when the job starts
	apply  func(end time.Time)
}

type watch struct {
	v   *vm
	gen uint64
}

// watch records v (if any) as one that must be unchanged at the end.
func (j *job) watch(v *vm) {
	if v != nil {
		j.seen = append(j.seen, watch{v, v.gen})
	}
}

// do runs an operation: plan validates it under the lock and fills in the
// job; then the job's time passes on the clock; then, if nothing went
// wrong meanwhile, apply runs under the lock. On any error nothing of the
// operation is applied. A call with nothing to do returns at once; faults
// fire only on calls with something to do.
func (d *Driver) do(ctx context.Context, op string, vms []drivers.VM, plan func(j *job) error) error {
	if len(vms) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	j := &job{op: op}
	for _, v := range vms {
		j.leases = append(j.leases, v.Lease)
	}
	log := d.log.WithFields(logrus.Fields{"lease_id": vms[0].Lease, "op": op})

	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return ErrClosed
	}
	if err := plan(j); err != nil {
		d.mu.Unlock()
		log.WithError(err).Debug("fake operation refused")
		return err
	}
	if j.work == 0 {
		d.mu.Unlock()
		return nil
	}
	slow, fail := d.matchFaultsLocked(j)
	total := scale(j.dur, slow)
	start := d.clk.Now()
	var frozen []*vm
	for _, v := range j.freeze {
		if v.frozen.IsZero() {
			v.frozen = start
			frozen = append(frozen, v)
		}
	}
	d.mu.Unlock()

	err := d.wait(ctx, total)

	d.mu.Lock()
	defer d.mu.Unlock()
	if err == nil && fail != "" {
		err = fmt.Errorf("%s of lease %d: %s: %w", op, vms[0].Lease, fail, ErrInjected)
	}
	if err == nil {
		err = d.stillValidLocked(j)
	}
	if err != nil {
		for _, v := range frozen {
			v.frozen = time.Time{}
		}
		d.poke()
		log.WithError(err).Debug("fake operation failed")
		return err
	}
	j.apply(start.Add(total))
	for _, v := range frozen {
		v.frozen = time.Time{}
	}
	log.WithField("took", total).Debug("fake operation done")
	d.poke()
	return d.persistLocked()
}

// wait lets dur pass on the clock, or returns early with ctx's error or
// ErrClosed.
func (d *Driver) wait(ctx context.Context, dur time.Duration) error {
	if dur <= 0 {
		return nil
	}
	select {
	case <-d.clk.After(dur):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-d.done:
		return ErrClosed
	}
}

// stillValidLocked checks that the hosts of j are up and its VMs
// unchanged.
func (d *Driver) stillValidLocked(j *job) error {
	for _, h := range j.hosts {
		if !d.hosts[h].up {
			return fmt.Errorf("%s: host %s lost during the operation: %w", j.op, h, drivers.ErrHostDown)
		}
	}
	for _, w := range j.seen {
		if d.vms[w.v.name] != w.v || w.v.gen != w.gen {
			return fmt.Errorf("%s: %s is now %s (%s): %w", j.op, w.v.name, w.v.state, w.v.detail, ErrChanged)
		}
	}
	return nil
}

// matchFaultsLocked fires the faults that match j: the product of their
// slow factors and the first failure text.
func (d *Driver) matchFaultsLocked(j *job) (slow float64, fail string) {
	slow = 1
	for _, f := range d.faults {
		switch {
		case f.Op != j.op, f.Times > 0 && f.fired >= f.Times:
			continue
		case f.Lease != 0 && !slices.Contains(j.leases, f.Lease):
			continue
		case f.Host != "" && !slices.Contains(j.hosts, f.Host):
			continue
		}
		f.fired++
		if f.Slow > 1 {
			slow *= f.Slow
		}
		if fail == "" {
			fail = f.Fail
		}
		d.log.WithFields(logrus.Fields{"op": j.op, "fail": f.Fail, "slow": f.Slow}).Info("fake fault fired")
	}
	return slow, fail
}

func scale(d time.Duration, f float64) time.Duration {
	if f == 1 {
		return d
	}
	return time.Duration(math.Round(float64(d) * f))
}

// useHostsLocked adds hosts to the ones job j uses for VM name, or
// returns the error for operation op if one of them is unknown or down
// (the first in order).
func (d *Driver) useHostsLocked(j *job, op, name string, hosts ...string) error {
	for _, host := range hosts {
		h, ok := d.hosts[host]
		switch {
		case !ok:
			return fmt.Errorf("%s %s on %q: %w", op, name, host, drivers.ErrUnknownHost)
		case !h.up:
			return fmt.Errorf("%s %s on %s: %w", op, name, host, drivers.ErrHostDown)
		}
	}
	j.hosts = append(j.hosts, hosts...)
	return nil
}
