package energyctl

import (
	"cmp"
	"slices"
	"time"

	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// input is what the policy sees at now for a request of n hosts (n = 0:
// none) starting at start, computed from the live scheduler state as
// docs/models.md §5 says:
//
//   - V over the external leases waiting in the queue (never started),
//     each weighted by its VMs, with its requested duration and the time
//     since its submission;
//   - C over the switched-on hosts: L the node-seconds booked on them from
//     now to the latest reservation end on them (a reservation of half a
//     host's CPU counts half a node: energy.Booked's sum, taken from the
//     slot table's usage integral), P*T the node-seconds they offer over
//     that horizon;
//   - On, Off, Booting: a host being emptied counts in none, one with a
//     boot planned (even if later) as booting, one shutting down in none;
//   - LocalNeedAtStart: the hosts holding local leases at start, plus n
//     for a local request;
//   - Idle: the switched-on hosts in service with no reservation from now
//     on, idle since the end of their last reservation or since they came
//     on; with Config.SwitchOffAhead also those free from now to a
//     reservation at least Config.AheadMinGap ahead.
func (c *Controller) input(now time.Time, n int, local bool, start time.Time) energy.Input {
	return c.inputWith(now, n, local, start, c.Waiting())
}

// inputWith is input with the waiting leases as Waiting gives them.
func (c *Controller) inputWith(now time.Time, n int, local bool, start time.Time, waitingLeases []*scheduler.Lease) energy.Input {
	s := c.s
	in := energy.Input{Now: now, Need: n, Local: local}
	waiting := make([]energy.Waiting, 0, len(waitingLeases))
	for _, l := range waitingLeases {
		waiting = append(waiting, energy.Waiting{VMs: l.Req.VMs, Duration: l.Req.Duration, Since: l.Submitted})
	}
	in.V = energy.ViolationRisk(waiting, now, c.cfg.Alpha)
	var booked float64 // node-seconds on the hosts on, from now
	horizon := now
	tab := s.Table()
	for i := range tab.NumHosts() {
		h := slottable.HostID(i)
		if s.Evacuating(h) {
			continue
		}
		if _, on, b := s.BootPlanned(h); b && on.After(now) {
			in.Booting++
			continue
		}
		switch s.PowerState(h, now) {
		case scheduler.PowerOff:
			in.Off++
		case scheduler.PowerOn:
			in.On++
			cpuSeconds, last := tab.UsageIntegral(h, slottable.CPU, now, scheduler.PowerForever)
			if capCPU := tab.Capacity(h, slottable.CPU); capCPU > 0 {
				booked += cpuSeconds / float64(capCPU)
			}
			if last.After(horizon) {
				horizon = last
			}
			if (!last.After(now) || c.freeAhead(h, now)) && s.HostEnabled(h) && c.inService(h) && c.mayOff(h) {
				in.Idle = append(in.Idle, energy.IdleHost{Host: tab.HostName(h), Since: c.idleSince(h)})
			}
		}
	}
	in.C = energy.Utilisation(in.On, horizon.Sub(now), booked)
	in.LocalNeedAtStart = c.localNeed(start)
	if local {
		in.LocalNeedAtStart += n
	}
	return in
}

// IdleSince is when host h, on and idle, last held something or came on
// (Config.Start for a host on from the start, unless RestoreIdle said
// otherwise). For a busy host it is the end of its last reservation seen.
func (c *Controller) IdleSince(h slottable.HostID) time.Time { return c.idleSince(h) }

// RestoreIdle sets when host h was last busy, as a controller before this
// one saw it (the daemon restarting): its idle time counts from since,
// even before Config.Start.
func (c *Controller) RestoreIdle(h slottable.HostID, since time.Time) {
	c.idleFrom[h] = since
}

func (c *Controller) idleSince(h slottable.HostID) time.Time {
	since := c.cfg.Start
	if from, ok := c.idleFrom[h]; ok {
		since = from
	}
	if c.onSince[h].After(since) {
		since = c.onSince[h]
	}
	if c.lastBusy[h].After(since) {
		since = c.lastBusy[h]
	}
	return since
}

// Waiting returns the external leases waiting in the queue that have never
// started, in queue order.
func (c *Controller) Waiting() []*scheduler.Lease {
	q := c.s.Queue()
	out := make([]*scheduler.Lease, 0, len(q))
	for _, id := range q {
		if l := c.s.Lease(id); l != nil && l.Req.Origin == scheduler.External && !l.Started() {
			out = append(out, l)
		}
	}
	return out
}

// localNeed counts the hosts holding a reservation of a local lease at t.
func (c *Controller) localNeed(t time.Time) int {
	// EachOverlapping visits host by host: a host is counted once, at its
	// first local reservation.
	n, last := 0, slottable.HostID(-1)
	c.s.Table().EachOverlapping(t, t.Add(time.Nanosecond), func(r slottable.Reservation) {
		if r.Host == last {
			return
		}
		if l := c.s.Lease(r.Lease); l != nil && l.Req.Origin == scheduler.Local {
			n, last = n+1, r.Host
		}
	})
	return n
}

// hostsFor is n of docs/models.md §5: how many hosts a request of vms VMs of cpu
// and memory needs, filling the largest hosts first.
func (c *Controller) hostsFor(vms int, cpu, memory int64) int {
	tab := c.s.Table()
	per := c.perHost[:0]
	for i := range tab.NumHosts() {
		h := slottable.HostID(i)
		k := vms
		if cpu > 0 {
			k = min(k, int(tab.Capacity(h, slottable.CPU)/cpu))
		}
		if memory > 0 {
			k = min(k, int(tab.Capacity(h, slottable.Memory)/memory))
		}
		if k > 0 {
			per = append(per, k)
		}
	}
	c.perHost = per
	slices.SortFunc(per, func(a, b int) int { return cmp.Compare(b, a) }) // largest first
	left := vms
	for i, k := range per {
		if left -= k; left <= 0 {
			return i + 1
		}
	}
	return max(len(per), 1)
}

// guard keeps a local lease from being refused for want of switched-on
// hosts, which the policies' "the rest by preemption" takes for granted:
// when the hosts on (or switched on in time) cannot hold the lease at its
// start even with every preemptable lease gone that can be preempted by
// then (not begun, or with the time to suspend it), the hosts it lacks are
// switched on as well, to be on at its start (counted in Stats.Guarded).
// Only hosts free over the lease's interval (fit) are switched on.
//
// An immediate lease that may wait for a boot (scheduler.immediate_boot_wait
// at least the boot time) is tried by the scheduler now and at the end of
// every boot planned within that tolerance (scheduler/bootwait.go): the
// guard is satisfied if one of those starts has the room, and otherwise
// switches on what the room lacks when the hosts it switches on now are
// on, at least one host (the end of its boot is then a start the
// scheduler tries).
func (c *Controller) guard(now time.Time, req scheduler.Request, start time.Time, fit func(slottable.HostID) bool) {
	s := c.s
	starts, ready := []time.Time{start}, start
	if boot, _ := s.PowerTimes(); req.Kind == scheduler.Immediate && boot > 0 && boot <= s.Config().ImmediateBootWait {
		ready = now.Add(boot)
		starts = append(starts, c.bootEnds(now, now.Add(s.Config().ImmediateBootWait))...)
	}
	for _, t := range starts {
		if c.room(now, req, t) >= req.VMs {
			return
		}
	}
	// At least one: the end of its boot is a start the scheduler tries
	// (an immediate lease whose room is there only once leases end).
	room := c.room(now, req, ready)
	perHost := max(1, req.VMs/c.hostsFor(req.VMs, req.CPU, req.Memory))
	k := max(1, (req.VMs-room+perHost-1)/perHost)
	c.stats.Guarded += c.switchOn(now, k, start, fit)
}

// room counts the VMs of req the hosts can hold from t (up to req.VMs),
// with every preemptable lease gone that can be preempted by then.
func (c *Controller) room(now time.Time, req scheduler.Request, t time.Time) int {
	s := c.s
	o := s.Config().Overheads
	end := t.Add(req.Duration + o.Enactment + o.Shutdown)
	per := slottable.Resources{req.CPU, req.Memory}
	for len(per) < s.Table().Dims() {
		per = append(per, 0)
	}
	lead := t.Sub(now)
	ignore := func(r slottable.Reservation) bool {
		l := s.Lease(r.Lease)
		return l != nil && s.MayBePreemptedWithin(l, lead)
	}
	room := 0
	for h := 0; h < s.Table().NumHosts() && room < req.VMs; h++ {
		room += s.Table().FitCount(slottable.HostID(h), t, end, per, ignore)
	}
	return room
}

// bootEnds lists the distinct ends of the boots planned after now and by
// limit, ascending.
func (c *Controller) bootEnds(now, limit time.Time) []time.Time {
	var out []time.Time
	for h := 0; h < c.s.Table().NumHosts(); h++ {
		if _, on, ok := c.s.BootPlanned(slottable.HostID(h)); ok && on.After(now) && !on.After(limit) {
			out = append(out, on)
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return slices.CompactFunc(out, time.Time.Equal)
}

// memories lists the memory of each VM of l.
func memories(l *scheduler.Lease) []int64 {
	m := make([]int64, l.Req.VMs)
	for i := range m {
		m[i] = l.Req.Memory
	}
	return m
}

// freeFor returns whether a host holds nothing over [start, end) but its
// power reservation and preemptable leases: switched on in time, it could
// take a local lease then.
func (c *Controller) freeFor(start, end time.Time) func(slottable.HostID) bool {
	s := c.s
	return func(h slottable.HostID) bool {
		for _, r := range s.Table().ReservationsOn(h, start, end) {
			if l := s.Lease(r.Lease); r.Lease != 0 && (l == nil || !s.Rule().Preemptable(l)) {
				return false
			}
		}
		return true
	}
}
