package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// A lease that is over (terminal, nothing left planned) leaves the
// scheduler once its last form is committed: the daemon's memory holds the
// live leases, and the store holds the finished ones in a compact record
// (overRecord: no plan, no reservations, times as offsets, empty fields
// left out). The daemon keeps only a small summary of each finished lease
// (overSummary) for the counters, the filters of `lease list` and
// jobs.lease_retention; `lease show` and `lease list` read the rest from
// the store.

// overRecord is the stored form of a finished lease. Times are
// nanoseconds after Submitted (At for history events), so that they are
// short and exact.
type overRecord struct {
	Over      bool                        `json:"over"` // tells it from a scheduler.SavedLease
	ID        scheduler.LeaseID           `json:"id"`
	Req       overRequest                 `json:"req"`
	State     scheduler.State             `json:"state"`
	History   []overEvent                 `json:"history,omitempty"`
	Reason    scheduler.Reason            `json:"reason,omitempty"`
	Detail    string                      `json:"detail,omitempty"`
	Submitted int64                       `json:"submitted"` // unix nanoseconds
	Ready     int64                       `json:"ready,omitempty"`
	Deadline  int64                       `json:"deadline,omitempty"` // unix nanoseconds; 0: none
	Remaining time.Duration               `json:"remaining,omitempty"`
	Start     *int64                      `json:"start,omitempty"` // FirstStart; nil: never started
	End       *int64                      `json:"end,omitempty"`
	Hosts     []slottable.HostID          `json:"hosts,omitempty"`
	AllHosts  []slottable.HostID          `json:"all_hosts,omitempty"` // nil: the same as Hosts
	Preempt   int                         `json:"preemptions,omitempty"`
	Migr      int                         `json:"migrations,omitempty"`
	Missed    bool                        `json:"deadline_missed,omitempty"`
	Overhead  time.Duration               `json:"overhead,omitempty"`
	Ops       map[scheduler.Operation]int `json:"ops,omitempty"`
}

// overRequest is scheduler.Request with its empty fields left out.
type overRequest struct {
	Name     string           `json:"name,omitempty"`
	User     string           `json:"user,omitempty"`
	Arrival  time.Duration    `json:"arrival,omitempty"` // after Submitted
	Kind     scheduler.Kind   `json:"kind,omitempty"`
	Start    time.Duration    `json:"start,omitempty"`
	Duration time.Duration    `json:"duration,omitempty"`
	Real     time.Duration    `json:"real,omitempty"`
	Deadline time.Duration    `json:"deadline,omitempty"`
	VMs      int              `json:"vms,omitempty"`
	CPU      int64            `json:"cpu,omitempty"`
	Memory   int64            `json:"memory,omitempty"`
	Image    string           `json:"image,omitempty"`
	Class    scheduler.Class  `json:"class,omitempty"`
	Origin   scheduler.Origin `json:"origin,omitempty"`
}

// overEvent is a history entry of a finished lease.
type overEvent struct {
	At     int64            `json:"at,omitempty"` // nanoseconds after Submitted
	State  scheduler.State  `json:"state"`
	Reason scheduler.Reason `json:"reason,omitempty"`
	Detail string           `json:"detail,omitempty"`
}

// isOver tells whether lease l is finished: it will never change again
// and holds nothing in the slot table.
func isOver(l *scheduler.Lease) bool {
	return l.State.Terminal() && len(l.Plan()) == 0
}

// encodeOver is the compact record of finished lease l.
func encodeOver(l *scheduler.Lease) ([]byte, error) {
	sub := l.Submitted.UnixNano()
	off := func(t time.Time) *int64 {
		if t.IsZero() {
			return nil
		}
		n := t.UnixNano() - sub
		return &n
	}
	r := l.Req
	o := overRecord{Over: true, ID: l.ID, State: l.State, Reason: l.Reason, Detail: l.Detail,
		Req: overRequest{Name: r.Name, User: r.User, Arrival: r.Arrival - time.Duration(sub), Kind: r.Kind, Start: r.Start,
			Duration: r.Duration, Real: r.Real, Deadline: r.Deadline, VMs: r.VMs, CPU: r.CPU, Memory: r.Memory,
			Image: r.Image, Class: r.Class, Origin: r.Origin},
		Submitted: sub, Remaining: l.Remaining, Start: off(l.FirstStart), End: off(l.End),
		Hosts: l.Hosts, Preempt: l.Preemptions, Migr: l.Migrations,
		Missed: l.DeadlineMissed, Overhead: l.Overhead}
	if p := off(l.Ready); p != nil {
		o.Ready = *p
	}
	if !l.Deadline.IsZero() {
		o.Deadline = l.Deadline.UnixNano()
	}
	if !slices.Equal(l.AllHosts, l.Hosts) {
		o.AllHosts = l.AllHosts
	}
	for op, n := range l.Ops {
		if n != 0 {
			if o.Ops == nil {
				o.Ops = map[scheduler.Operation]int{}
			}
			o.Ops[op] = n
		}
	}
	for _, e := range l.History {
		o.History = append(o.History, overEvent{At: e.At.UnixNano() - sub, State: e.State, Reason: e.Reason, Detail: e.Detail})
	}
	return json.Marshal(o)
}

// decodeOver reads a stored lease record: ok is false when data is not a
// compact record (a scheduler.SavedLease).
func decodeOver(data []byte) (l *scheduler.Lease, ok bool, err error) {
	var probe struct {
		Over bool `json:"over"`
	}
	if err := json.Unmarshal(data, &probe); err != nil || !probe.Over {
		return nil, false, err
	}
	var o overRecord
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, false, err
	}
	at := func(n int64) time.Time { return time.Unix(0, o.Submitted+n).UTC() }
	r := o.Req
	l = &scheduler.Lease{ID: o.ID, State: o.State, Reason: o.Reason, Detail: o.Detail,
		Req: scheduler.Request{Name: r.Name, User: r.User, Arrival: r.Arrival + time.Duration(o.Submitted), Kind: r.Kind, Start: r.Start,
			Duration: r.Duration, Real: r.Real, Deadline: r.Deadline, VMs: r.VMs, CPU: r.CPU, Memory: r.Memory,
			Image: r.Image, Class: r.Class, Origin: r.Origin},
		Submitted: at(0), Ready: at(o.Ready), Remaining: o.Remaining, Hosts: o.Hosts, AllHosts: o.AllHosts,
		Preemptions: o.Preempt, Migrations: o.Migr, DeadlineMissed: o.Missed, Overhead: o.Overhead,
		Ops: map[scheduler.Operation]int{}}
	if o.AllHosts == nil {
		l.AllHosts = slices.Clone(o.Hosts)
	}
	if o.Start != nil {
		l.FirstStart = at(*o.Start)
	}
	if o.End != nil {
		l.End = at(*o.End)
	}
	if o.Deadline != 0 {
		l.Deadline = time.Unix(0, o.Deadline).UTC()
	}
	for op, n := range o.Ops {
		l.Ops[op] = n
	}
	for _, e := range o.History {
		l.History = append(l.History, scheduler.Event{At: at(e.At), State: e.State, Reason: e.Reason, Detail: e.Detail})
	}
	return l, true, nil
}

// errNotFinished is returned when the store holds a live lease's record
// where the daemon expects a finished one's (the store was changed behind
// its back).
var errNotFinished = errors.New("not a finished lease's record")

// overSummary is what the daemon keeps in memory of a finished lease.
type overSummary struct {
	state       scheduler.State
	user        string
	end         time.Time
	vms         int
	cpu         int64 // per VM
	preemptions int
	overhead    time.Duration
	// wait and dur feed the waiting-threshold violation rate (external
	// leases that started).
	wait, dur time.Duration
	counted   bool
	external  bool             // for the admission metrics (admission.go)
	reason    scheduler.Reason // of a rejection
}

func summarize(l *scheduler.Lease) overSummary {
	s := overSummary{state: l.State, user: l.Req.User, end: l.End, vms: l.Req.VMs, cpu: l.Req.CPU,
		preemptions: l.Preemptions, overhead: l.Overhead, external: l.Req.Origin == scheduler.External}
	if l.State == scheduler.Rejected {
		s.reason = l.Reason
	}
	if l.Req.Origin == scheduler.External && !l.FirstStart.IsZero() {
		s.wait, s.dur, s.counted = l.FirstStart.Sub(l.Submitted), l.Req.Duration, true
	}
	return s
}

// overTally is what the counters need of the finished leases, kept as
// they finish and are forgotten, so that a pass does not walk them all.
type overTally struct {
	byState                   map[scheduler.State]int
	preemptions, preemptedVMs int
	overhead                  time.Duration
	waits                     []energy.Finished // of external leases that started; rebuilt when leases are forgotten
	// External leases finished, done, and rejected by reason (admission.go).
	external, externalDone int
	rejections             map[scheduler.Reason]int
}

// tally adds (sign 1) or takes away (sign -1) one finished lease.
func (t *overTally) tally(s overSummary, sign int) {
	if t.byState == nil {
		t.byState = map[scheduler.State]int{}
	}
	t.byState[s.state] += sign
	t.preemptions += sign * s.preemptions
	t.preemptedVMs += sign * s.preemptions * s.vms
	t.overhead += time.Duration(sign) * s.overhead
	if s.external {
		t.external += sign
		if s.state == scheduler.Done {
			t.externalDone += sign
		}
		if s.state == scheduler.Rejected {
			if t.rejections == nil {
				t.rejections = map[scheduler.Reason]int{}
			}
			t.rejections[s.reason] += sign
			if t.rejections[s.reason] == 0 {
				delete(t.rejections, s.reason)
			}
		}
	}
	if s.counted && sign > 0 {
		t.waits = append(t.waits, energy.Finished{Wait: s.wait, Duration: s.dur})
	}
}

// addOver records that lease l is finished (after its record is committed).
func (d *Daemon) addOver(l *scheduler.Lease) {
	s := summarize(l)
	if old, ok := d.over[l.ID]; ok {
		d.tally.tally(old, -1)
	}
	d.over[l.ID] = s
	d.tally.tally(s, 1)
}

// release takes the finished leases whose last form is committed out of
// the scheduler (after their last actions are enacted: the executor looks
// leases up there).
func (d *Daemon) release() {
	if len(d.leaving) > 0 {
		d.finishedSince += len(d.leaving)
		d.sched.Release(d.leaving)
		d.leaving = d.leaving[:0]
	}
}

// Compaction of the store as leases finish: every compactEvery finished
// leases, the daemon compacts the file if it is at least compactFloor and
// twice the size of its data. Churning leases leave free pages and pages
// a quarter full behind (bbolt merges a page only below 25 %), and bbolt
// grows the file ahead of need; a compacted copy fills its pages.
const (
	compactEvery = 256
	compactFloor = 1 << 20
)

// maybeCompact compacts the store when enough leases finished since the
// last look (or always) and the file is mostly empty; the pass waits for
// it (a store of 10,000 finished leases compacts in a few tens of
// milliseconds).
func (d *Daemon) maybeCompact(always bool) {
	if d.finishedSince < compactEvery && !always {
		return
	}
	d.finishedSince = 0
	u, err := d.store.Usage()
	if err != nil || u.File < compactFloor || u.File < 2*u.Data {
		return
	}
	log := d.log.WithField("component", "store").WithField("bytes", u.File).WithField("data", u.Data)
	if err := d.store.Compact(); err != nil {
		log.WithError(err).Error("store compaction")
		return
	}
	log.Info("store compacted: most of it was free")
}

// overLease reads finished lease id from the store; nil when there is no
// such finished lease.
func (d *Daemon) overLease(id scheduler.LeaseID) (*scheduler.Lease, error) {
	if _, ok := d.over[id]; !ok {
		return nil, nil
	}
	data, err := d.store.Lease(id)
	if err != nil {
		return nil, err
	}
	l, ok, err := decodeOver(data)
	if err == nil && !ok {
		err = errNotFinished
	}
	if err != nil {
		return nil, fmt.Errorf("state store: lease %d: %w", id, err)
	}
	return l, nil
}

// lookup is lease id, live (from the scheduler) or finished (from the
// store); nil when unknown.
func (d *Daemon) lookup(id scheduler.LeaseID) (*scheduler.Lease, error) {
	if l := d.sched.Lease(id); l != nil {
		return l, nil
	}
	return d.overLease(id)
}

// countOver adds the finished leases to the counters.
func (d *Daemon) countOver(c *counts) {
	for st, n := range d.tally.byState {
		c.byState[string(st)] += n
	}
	c.preemptions += d.tally.preemptions
	c.preemptedVMs += d.tally.preemptedVMs
	c.overhead += d.tally.overhead
}

// overWaits are the finished external leases' waits, for the violation rate.
func (d *Daemon) overWaits(fin []energy.Finished) []energy.Finished {
	return append(fin, d.tally.waits...)
}

// forgetOver drops the finished leases that ended before cutoff, and
// returns their ids (to delete from the store).
func (d *Daemon) forgetOver(cutoff time.Time) []scheduler.LeaseID {
	var gone []scheduler.LeaseID
	for id, s := range d.over {
		if !s.end.IsZero() && s.end.Before(cutoff) {
			gone = append(gone, id)
			d.tally.tally(s, -1)
			delete(d.over, id)
			delete(d.rewrite, id)
		}
	}
	if len(gone) > 0 {
		d.tally.waits = d.tally.waits[:0]
		for _, s := range d.over {
			if s.counted {
				d.tally.waits = append(d.tally.waits, energy.Finished{Wait: s.wait, Duration: s.dur})
			}
		}
	}
	return gone
}

// leaseState is the state of a lease the scheduler holds, or of a finished
// one it has released (d.over); false for a lease bora does not know.
func (d *Daemon) leaseState(id scheduler.LeaseID) (scheduler.State, bool) {
	if l := d.sched.Lease(id); l != nil {
		return l.State, true
	}
	o, ok := d.over[id]
	return o.state, ok
}
