package scheduler

import (
	"fmt"
	"slices"
	"time"

	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/slottable"
)

// victim is a lease chosen for preemption and what will be done to it.
type victim struct {
	l      *Lease
	op     Operation
	cost   time.Duration            // h(L)
	opLen  time.Duration            // how long its operation holds its hosts
	hosts  map[slottable.HostID]int // running: the hosts it runs on (holdHosts)
	over   []slottable.HostID       // candidates: the hosts it holds over the preemptor's interval
	from   time.Time                // the operation's interval
	to     time.Time
	images bool // the operation writes memory images (subject to exclusion)
	// For a running victim: when its run began and the requested time it
	// had left then (to plan its restart before it is cut).
	runStart time.Time
	left     time.Duration
}

// oracle answers "does lease l fit over [at, at+d) if these candidates are
// preempted?" What fits with nothing preempted is counted once, over every
// host; a set then changes the count only on the hosts where its members
// hold a reservation over the interval (ignoring reservations only frees
// room), so each question costs the set's hosts, not the cluster's. A host
// held by one candidate alone gains the same whenever that candidate is in
// the set: those gains are added up once per candidate (its solo gain),
// and only the hosts that several candidates hold are counted for the set
// itself (in a large cluster most candidates hold hosts of their own, and
// walking every member's hosts at each question was 8 % of
// BenchmarkScaleAggressive at 24,000 leases). cands are as candidates
// returns them over the same interval (with their hosts over it).
func (s *Scheduler) oracle(l *Lease, at time.Time, d time.Duration, cands []*victim) preempt.Feasible {
	end := at.Add(d)
	per := l.Per()
	lazy := s.lazyIgnore() // nil but while placing a fixed lease (lazyplan.go)
	nh := s.table.NumHosts()
	baseOn := make([]int, nh) // each host's count with nothing preempted
	base := 0
	for h := range nh {
		baseOn[h] = s.table.FitCount(slottable.HostID(h), at, end, per, lazy)
		base += baseOn[h]
	}
	// owner is, per host, the one candidate holding it over the interval,
	// sharedHost when several do, noOwner when none.
	owner := make([]int32, nh)
	for h := range owner {
		owner[h] = noOwner
	}
	for i, c := range cands {
		for _, h := range c.over {
			if o := owner[h]; o == noOwner {
				owner[h] = int32(i)
			} else if o != int32(i) {
				owner[h] = sharedHost
			}
		}
	}
	// Per candidate, its hosts that others hold too (sharedOn[sharedAt[i]:
	// sharedAt[i+1]]), and whether it holds some alone.
	sharedAt := make([]int32, len(cands)+1)
	var sharedOn []slottable.HostID
	alone := make([]bool, len(cands))
	for i, c := range cands {
		sharedAt[i] = int32(len(sharedOn))
		for _, h := range c.over {
			if owner[h] == sharedHost {
				sharedOn = append(sharedOn, h)
			} else {
				alone[i] = true
			}
		}
	}
	sharedAt[len(cands)] = int32(len(sharedOn))
	shared := func(i int) []slottable.HostID { return sharedOn[sharedAt[i]:sharedAt[i+1]] }
	solo := make([]int, len(cands)) // per candidate: its solo gain, once known
	soloDone := make([]bool, nh)    // per host held by one candidate: counted in its solo gain
	gone := map[LeaseID]bool{}
	ignore := func(r slottable.Reservation) bool { return gone[r.Lease] || lazy != nil && lazy(r) }
	soloOf := func(i int) int {
		if !alone[i] {
			return solo[i] // known, or none to know
		}
		alone[i] = false
		clear(gone)
		gone[cands[i].l.ID] = true
		for _, h := range cands[i].over {
			if owner[h] == int32(i) && !soloDone[h] { // once per host (a lease may hold one twice)
				soloDone[h] = true
				solo[i] += s.table.FitCount(h, at, end, per, ignore) - baseOn[h]
			}
		}
		return solo[i]
	}
	// Scratch space for the calls, one after the other (an exact search
	// makes thousands), and each shared host's gain for the members last
	// asked about it: a search asks about set after set that differ by a
	// member or two, and a host's count depends only on the members that
	// hold it over the interval (a lease with a reservation there over it
	// has the host in its over).
	var members []int
	var touched []slottable.HostID // the shared hosts the set holds, this call
	cnt := make([]int32, nh)       // per host: its members, this call
	at0 := make([]int32, nh)       // per host: where its members start in flat
	var flat []int32               // the members, host after host
	type hostGain struct {
		key  []int32 // the members holding it, in order
		n    int
		seen bool
	}
	last := make([]hostGain, nh)
	return func(set preempt.Set) bool {
		members = set.AppendIndexes(members[:0])
		// The gains are never negative (leaving reservations out only
		// frees room), so they may be added up in any order.
		n := base
		for _, i := range members {
			n += soloOf(i)
		}
		if n >= l.Req.VMs {
			return true
		}
		for _, h := range touched {
			cnt[h] = 0
		}
		touched = touched[:0]
		for _, i := range members {
			for _, h := range shared(i) {
				if cnt[h] == 0 {
					touched = append(touched, h)
				}
				cnt[h]++
			}
		}
		off := int32(0)
		for _, h := range touched {
			at0[h], off, cnt[h] = off, off+cnt[h], 0
		}
		flat = slices.Grow(flat[:0], int(off))[:off]
		for _, i := range members { // in order: each host's members in order
			for _, h := range shared(i) {
				flat[at0[h]+cnt[h]] = int32(i)
				cnt[h]++
			}
		}
		for _, h := range touched {
			if n >= l.Req.VMs {
				return true
			}
			on := flat[at0[h] : at0[h]+cnt[h]]
			g := &last[h]
			if !g.seen || !slices.Equal(g.key, on) {
				clear(gone)
				for _, i := range on {
					gone[cands[i].l.ID] = true
				}
				g.key, g.seen = append(g.key[:0], on...), true
				g.n = s.table.FitCount(h, at, end, per, ignore) - baseOn[h]
			}
			n += g.n
		}
		return n >= l.Req.VMs
	}
}

// noOwner and sharedHost are the oracle's marks for a host no candidate
// holds, and one that several hold.
const (
	noOwner    = -1
	sharedHost = -2
)

// layout places the victims' operations in time. With backward set (an
// advance reservation) they end by at; an operation that would have to
// begin before now fails the layout. Otherwise they are laid out from now
// on, and the preempting lease starts when they are over (not before at).
// Operations that write memory images do not overlap when they share a host
// (exclusion local) or at all (exclusion global).
func (s *Scheduler) layout(victims []*victim, at, now time.Time, backward bool) (time.Time, bool) {
	if s.layoutBackward(victims, at, now) {
		return at, true
	}
	if backward {
		return time.Time{}, false
	}
	start := at
	var placed []*victim
	for _, v := range victims {
		v.from = now
		for moved := true; moved; {
			moved = false
			for _, b := range s.blocks(v, placed, victims) {
				if b.start.Before(v.from.Add(v.opLen)) && b.end.After(v.from) {
					v.from, moved = b.end, true
				}
			}
		}
		v.to = v.from.Add(v.opLen)
		if v.to.After(start) {
			start = v.to
		}
		placed = append(placed, v)
	}
	return start, s.within(victims)
}

func (s *Scheduler) layoutBackward(victims []*victim, at, now time.Time) bool {
	var placed []*victim
	for _, v := range victims {
		v.to = at
		for moved := true; moved; {
			moved = false
			for _, b := range s.blocks(v, placed, victims) {
				if b.start.Before(v.to) && b.end.After(v.to.Add(-v.opLen)) {
					v.to, moved = b.start, true
				}
			}
		}
		v.from = v.to.Add(-v.opLen)
		if v.from.Before(now) {
			return false
		}
		placed = append(placed, v)
	}
	return s.within(victims)
}

// interval is a span of time another image operation holds.
type interval struct{ start, end time.Time }

// blocks are the intervals v's operation must not overlap: the operations
// already placed for this decision and those of other leases in the table
// that write or read memory images, on v's hosts (exclusion local) or
// anywhere (global). Operations that write no image are never blocked.
func (s *Scheduler) blocks(v *victim, placed, victims []*victim) []interval {
	if !v.images {
		return nil
	}
	var out []interval
	for _, w := range placed {
		if s.conflict(v, w) {
			out = append(out, interval{w.from, w.to})
		}
	}
	skip := map[LeaseID]bool{}
	for _, w := range victims {
		skip[w.l.ID] = true
	}
	amid := s.amid && s.lazyN > 0 // the lazy plans left out (preemptRefusedAmid)
	s.table.EachOverlapping(s.now, v.l.plannedEnd().Add(v.opLen), func(r slottable.Reservation) {
		if skip[r.Lease] || amid && s.lazyPlan(r) || (r.Kind != slottable.KindSuspend && r.Kind != slottable.KindResume && r.Kind != slottable.KindMigrate) {
			return
		}
		if s.cfg.Exclusion == ExclusionGlobal || v.hosts[r.Host] > 0 {
			out = append(out, interval{r.Start, r.End})
		}
	})
	return out
}

// within reports whether every running victim's operation begins during
// its run and ends before its plan would have: the operation holds only
// what the victim already held.
func (s *Scheduler) within(victims []*victim) bool {
	for _, v := range victims {
		if v.op == OpUnreserve {
			continue
		}
		if v.l.runPhase(v.from) < 0 || v.to.After(v.l.plannedEnd()) {
			return false
		}
	}
	return true
}

func (s *Scheduler) conflict(a, b *victim) bool {
	if !a.images || !b.images {
		return false
	}
	if s.cfg.Exclusion == ExclusionGlobal {
		return true
	}
	for h := range a.hosts {
		if b.hosts[h] > 0 {
			return true
		}
	}
	return false
}

// apply preempts one victim: its run is cut where its operation begins, and
// the operation is reserved on its hosts. The preemption is counted now; a
// victim whose earlier preemption had not begun yet is preempted again,
// earlier, and that one is taken back (it is replaced, not added to).
func (s *Scheduler) apply(v *victim, now time.Time, detail string) {
	l := v.l
	s.voidPending(l, now, "")
	prevReason, prevDetail := l.Reason, l.Detail
	l.Preemptions++
	l.Overhead += v.cost
	l.Ops[v.op]++
	l.History = append(l.History, Event{At: now, State: l.State, Reason: ReasonPreempted,
		Detail: fmt.Sprintf("%s at %s %s", v.op, FormatTime(v.from), detail)})
	l.Reason, l.Detail = ReasonPreempted, detail
	if v.op == OpUnreserve {
		s.unplan(l)
		s.requeueFront(l)
		l.setState(now, Queued, ReasonPreempted, detail)
		return
	}
	l.preemptPending = true
	l.pending = &PendingPreemption{Op: v.op, At: v.from, Cost: v.cost, PrevReason: prevReason, PrevDetail: prevDetail}
	hosts := l.plan[l.runPhase(v.from)].hosts
	s.cut(l, v.from)
	kind := phStop
	switch v.op {
	case OpSuspend, OpMigrate:
		kind, l.after = phSuspend, afterSuspend
		l.prevHost = hostsOf(hosts)
		l.migrate = v.op == OpMigrate
	case OpRequeue:
		l.after = afterRequeue
	default:
		l.after = afterCancel
	}
	if err := s.appendPhase(l, kind, v.from, v.to, hosts); err != nil {
		s.log.LeaseError(l.ID, "reserving preemption", err)
	}
	if !l.entered || l.plan[l.cur].end.After(now) {
		return
	}
	s.step(l, now)
}

// pendingLive reports whether l's pending preemption has yet to begin: l
// is still in the run its operation cuts. This is read from the plan, not
// kept as a flag cleared when the operation ends: a flag outlives the
// operation on paths that do not clear it (a stop-and-requeue leaves
// preemptPending set while the lease runs again from scratch, and a
// deadline lease so restarted that then ended early would have a real
// preemption taken back).
func (l *Lease) pendingLive() bool {
	if l.pending == nil || !l.entered || l.cur >= len(l.plan) {
		return false
	}
	p := l.plan[l.cur]
	return p.kind == phRun && p.end.Equal(l.pending.At)
}

// voidPending takes back lease l's preemption whose operation has not
// begun and now never will (l ends or is preempted again first): it is no
// longer counted, and l's reason is what it was before. why, when not
// empty, is noted in l's history. Nothing happens when there is none.
func (s *Scheduler) voidPending(l *Lease, now time.Time, why string) {
	if !l.pendingLive() {
		l.pending = nil
		return
	}
	p := l.pending
	l.pending, l.preemptPending = nil, false
	l.Preemptions--
	l.Overhead -= p.Cost
	if l.Ops[p.Op]--; l.Ops[p.Op] <= 0 {
		delete(l.Ops, p.Op)
	}
	l.Reason, l.Detail = p.PrevReason, p.PrevDetail
	if why != "" {
		l.History = append(l.History, Event{At: now, State: l.State, Reason: ReasonPreemptionVoid,
			Detail: fmt.Sprintf("its %s planned at %s did not happen: %s", p.Op, FormatTime(p.At), why)})
	}
}

func fullSet(n int) preempt.Set {
	set := preempt.NewSet(n)
	for i := 0; i < n; i++ {
		set.Add(i)
	}
	return set
}
