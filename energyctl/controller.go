package energyctl

import (
	"math"
	"time"

	"github.com/bora-sched/bora/energy"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// DefaultTick is the period of the controller when none is set.
const DefaultTick = 5 * time.Minute

// Config is how a Controller runs.
type Config struct {
	Policy energy.Policy // from energy.NewPolicy
	Alpha  float64       // the waiting factor of V (energy.Params.Alpha)
	Tick   time.Duration // the cron's period (0: DefaultTick), ticks at multiples of it from Start
	Start  time.Time     // the first tick is Start + Tick
	// Next, when set, is the cron instead of Tick: the time of the tick
	// after a given time (the first is Next(Start)).
	Next func(time.Time) time.Time
	// Instant, when not zero, is an instant at which hosts switched on are
	// on at once: the simulator's epoch, so that the hosts the first
	// leases of a trace need are taken as running already.
	Instant time.Time
	// NoConsolidation makes PEMP never empty hosts (for experiments).
	NoConsolidation bool
	// ExternalArrivals has the policy decide on each arriving external
	// lease too, with it as the request (docs/models.md §5 decides on local
	// arrivals and on the tick only; for experiments).
	ExternalArrivals bool
	// InService, when set, says which hosts may be switched on (the
	// daemon's enabled and up hosts); nil: all.
	InService func(slottable.HostID) bool
	// MayOff, when set, says which hosts may be switched off (the daemon
	// leaves a host whose switch-off failed alone for a while); nil: all.
	MayOff func(slottable.HostID) bool
	Hooks  Hooks
	// SwitchOffAhead lets a host with a reservation ahead be switched off
	// when that reservation begins at least AheadMinGap from now (and
	// after the shutdown and the boot): its boot is planned to end when
	// the reservation begins (Scheduler.PowerOffAhead; docs/models.md §5,
	// energy.switch_off_ahead).
	SwitchOffAhead bool
	// AheadMinGap is the shortest gap to a reservation ahead worth a
	// power cycle (energy.PowerModel.BreakEven).
	AheadMinGap time.Duration
}

// Hooks are told of every host the controller switches on or off, after
// the scheduler has been.
type Hooks struct {
	// SwitchedOn: host h boots over [boot, ready). When it had a boot
	// planned already (moved earlier), prevBoot and prevReady are its
	// times; otherwise they are zero.
	SwitchedOn func(h slottable.HostID, boot, ready, prevBoot, prevReady time.Time)
	// SwitchedOff: host h shuts down from now.
	SwitchedOff func(h slottable.HostID, now time.Time)
}

// Stats counts what a controller did.
type Stats struct {
	Decisions    int // policy decisions (local arrivals and ticks)
	SwitchedOn   int // hosts switched on
	Guarded      int // of which to keep a local lease from being refused
	Drained      int // of which for the queue once nothing else would happen
	SwitchedOff  int // hosts switched off
	OffAhead     int // of which with a reservation ahead, a boot planned for it
	Consolidated int // hosts emptied (consolidation)
	// ForRestart counts the hosts the scheduler switched on itself for a
	// preempted deadline lease to restart by its deadline
	// (Scheduler.TakeBoots); they are not in SwitchedOn.
	ForRestart int
}

// Controller runs an energy policy over a scheduler (doc.go).
type Controller struct {
	s       *scheduler.Scheduler
	cfg     Config
	managed bool // the policy switches hosts (anything but always-on)
	next    time.Time

	names    map[string]slottable.HostID
	lastBusy map[slottable.HostID]time.Time // the end of the last reservation seen (Record)
	onSince  map[slottable.HostID]time.Time // when the host came on (switched on by this controller)
	idleFrom map[slottable.HostID]time.Time // idle since, as restored (RestoreIdle)
	switched map[scheduler.LeaseID]time.Time
	evac     []slottable.HostID
	stats    Stats

	perHost    []int           // hostsFor's scratch space
	waitingSet map[uint64]bool // externalRoom's: the waiting leases' IDs
	waitingIDs []uint64        // the same, in the order it was made from
}

// New returns a controller of s. It does not switch anything: a caller
// that starts with hosts off marks them off (Scheduler.MarkOff).
func New(s *scheduler.Scheduler, cfg Config) *Controller {
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	_, alwaysOn := cfg.Policy.(*energy.AlwaysOn)
	next := cfg.Start.Add(cfg.Tick)
	if cfg.Next != nil {
		next = cfg.Next(cfg.Start)
	}
	c := &Controller{s: s, cfg: cfg, managed: cfg.Policy != nil && !alwaysOn, next: next,
		names: map[string]slottable.HostID{}, lastBusy: map[slottable.HostID]time.Time{},
		onSince: map[slottable.HostID]time.Time{}, idleFrom: map[slottable.HostID]time.Time{}, switched: map[scheduler.LeaseID]time.Time{}}
	for _, h := range s.Table().Hosts() {
		c.names[h.Name] = h.ID
	}
	return c
}

// hostID returns the host named name; the names are read again from the
// table when one is missing (a host added since).
func (c *Controller) hostID(name string) (slottable.HostID, bool) {
	h, ok := c.names[name]
	if !ok {
		for _, host := range c.s.Table().Hosts() {
			c.names[host.Name] = host.ID
		}
		h, ok = c.names[name]
	}
	return h, ok
}

// Managed reports whether the policy switches hosts on and off.
func (c *Controller) Managed() bool { return c.managed }

// Stats returns the counts so far.
func (c *Controller) Stats() Stats { return c.stats }

// SetScheduler points the controller at another scheduler over the same
// hosts (the daemon rebuilds its scheduler on a reload).
func (c *Controller) SetScheduler(s *scheduler.Scheduler) { c.s = s }

// mayOff reports whether host h may be switched off (Config.MayOff).
func (c *Controller) mayOff(h slottable.HostID) bool {
	return c.cfg.MayOff == nil || c.cfg.MayOff(h)
}

// inService reports whether host h may be switched on (Config.InService).
func (c *Controller) inService(h slottable.HostID) bool {
	return c.cfg.InService == nil || c.cfg.InService(h)
}

// Record notes a reservation as it ended (the scheduler's Record hook):
// its host was busy until then.
func (c *Controller) Record(iv scheduler.Interval) {
	if iv.End.After(c.lastBusy[iv.Host]) {
		c.lastBusy[iv.Host] = iv.End
	}
}

// NextAt is when the controller must run next: the next tick, while busy
// (the caller has something else to do) or a lease waits or a host is
// being emptied.
func (c *Controller) NextAt(busy bool) (time.Time, bool) {
	if !c.managed {
		return time.Time{}, false
	}
	if busy || len(c.evac) > 0 || len(c.Waiting()) > 0 {
		return c.next, true
	}
	return time.Time{}, false
}

// BeforeSubmit runs the policy for an arriving local lease, just before
// it is submitted, and enacts the decision: hosts are switched on to be
// on at the lease's start; a consolidation leaves alone the hosts in
// service the lease could take; the guard switches on what it still
// lacks. The queue sees the new hosts only once the lease is placed
// (Scheduler.PlanQueue is not called): they were switched on for it. It
// returns what the scheduler asked for meanwhile (a consolidation's
// preemptions).
func (c *Controller) BeforeSubmit(now time.Time, req scheduler.Request) []scheduler.Action {
	c.noteBoots() // even unmanaged: hosts may be off by hand (PowerOff)
	if !c.managed || req.Validate() != nil {
		return nil
	}
	if req.Origin != scheduler.Local {
		if !c.cfg.ExternalArrivals {
			return nil
		}
		in := c.input(now, c.hostsFor(req.VMs, req.CPU, req.Memory), false, now)
		d := c.cfg.Policy.Decide(in)
		c.stats.Decisions++
		acts := c.enact(now, d, now, nil, nil)
		if d.SwitchOn > 0 {
			c.s.PlanQueue()
		}
		return acts
	}
	start := c.s.At(req.ReadyTime())
	if start.Before(now) {
		start = now
	}
	n := c.hostsFor(req.VMs, req.CPU, req.Memory)
	in := c.input(now, n, true, start)
	d := c.cfg.Policy.Decide(in)
	c.stats.Decisions++
	o := c.s.Config().Overheads
	fit := c.freeFor(start, start.Add(req.Duration+o.Enactment+o.Shutdown))
	acts := c.enact(now, d, start, fit, c.keepFor(n, fit))
	c.guard(now, req, start, fit)
	return acts
}

// Step runs at every time the caller's loop stops at, after the
// arrivals: hosts emptied by a consolidation are switched off once empty,
// and on a tick the policy decides with the head of the external queue as
// the request. quiet (called on ticks only; nil: never) says that nothing
// else will ever happen by itself. It returns what the scheduler asked
// for, having advanced it to now.
func (c *Controller) Step(now time.Time, quiet func() bool) []scheduler.Action {
	c.noteBoots() // even unmanaged: hosts may be off by hand (PowerOff)
	if !c.managed {
		return nil
	}
	c.finishEvacuations(now)
	if now.Before(c.next) {
		return nil
	}
	if c.cfg.Next != nil {
		c.next = c.cfg.Next(now)
	}
	for !c.next.After(now) {
		c.next = c.next.Add(c.cfg.Tick)
	}
	acts := c.onTick(now, quiet != nil && quiet())
	return append(acts, c.s.Advance(now)...)
}

// onTick decides for the head of the external queue. A lease hosts were
// switched on for is not given more while they boot. When quiet and a
// lease waits under a policy that would not switch a host on for it even
// at an infinite violation risk (GESP: external leases only use what is
// on), the hosts the head needs are switched on anyway (Drained).
func (c *Controller) onTick(now time.Time, quiet bool) []scheduler.Action {
	var head *scheduler.Lease
	waiting := c.Waiting() // read once: input and externalRoom read it too
	if len(waiting) > 0 {
		head = waiting[0]
	}
	n := 0
	if head != nil {
		n = c.hostsFor(head.Req.VMs, head.Req.CPU, head.Req.Memory)
	}
	in := c.inputWith(now, n, false, now, waiting)
	if head != nil {
		in.Room = c.externalRoom(now, head, n, waiting)
	}
	d := c.cfg.Policy.Decide(in)
	c.stats.Decisions++
	if head != nil {
		if ready, ok := c.switched[head.ID]; ok && ready.After(now) {
			d.SwitchOn, d.SwitchOff = 0, nil // its hosts are still booting
		} else if quiet && d.SwitchOn == 0 && c.neverForExternal(in) {
			d.SwitchOn, d.SwitchOff = min(n, in.Off), nil
			c.stats.Drained += d.SwitchOn
		}
	}
	acts := c.enact(now, d, now, nil, nil)
	if d.SwitchOn > 0 {
		c.s.PlanQueue()
		if head != nil {
			boot, _ := c.s.PowerTimes()
			c.switched[head.ID] = now.Add(boot)
		}
	}
	return acts
}

// neverForExternal reports whether the policy would switch no host on for
// the external request of in even at an infinite violation risk.
func (c *Controller) neverForExternal(in energy.Input) bool {
	in.V = math.Inf(1)
	return c.cfg.Policy.Decide(in).SwitchOn == 0
}

// enact carries a decision out at now: hosts switched on to be on at at
// (among those fit accepts, when set), hosts emptied for consolidation
// (not those in keep), idle hosts switched off.
func (c *Controller) enact(now time.Time, d energy.Decision, at time.Time, fit func(slottable.HostID) bool, keep map[slottable.HostID]bool) []scheduler.Action {
	c.switchOn(now, d.SwitchOn, at, fit)
	var acts []scheduler.Action
	if d.Consolidate > 0 && !c.cfg.NoConsolidation {
		acts = c.consolidate(now, d.Consolidate, d.SwitchOff, keep)
	}
	for _, name := range d.SwitchOff {
		if h, ok := c.hostID(name); ok {
			c.PowerOff(now, h)
		}
	}
	return acts
}

// SwitchOn switches on k hosts to be on at at (or as soon as they can
// be): first hosts off or shutting down, lowest IDs first; then, if more
// are needed, hosts whose boot is planned for later than at, whose boot is
// moved earlier. With fit set, only hosts it accepts are taken. It returns
// how many it switched on.
func (c *Controller) switchOn(now time.Time, k int, at time.Time, fit func(slottable.HostID) bool) int {
	done := 0
	for later := 0; later < 2 && done < k; later++ {
		for h := 0; h < c.s.Table().NumHosts() && done < k; h++ {
			id := slottable.HostID(h)
			if !c.switchable(id, now, at, later == 1) || (fit != nil && !fit(id)) {
				continue
			}
			if c.PowerOn(now, id, at) {
				done++
			}
		}
	}
	c.stats.SwitchedOn += done
	return done
}

// noteBoots tells the hooks of the boots the scheduler planned by itself
// since the last call (Scheduler.TakeBoots: a preempted deadline lease
// restarting by its deadline on a host that was off), before anything
// else changes those hosts.
func (c *Controller) noteBoots() {
	for _, b := range c.s.TakeBoots() {
		c.stats.ForRestart++
		c.onSince[b.Host] = b.On
		if c.cfg.Hooks.SwitchedOn != nil {
			c.cfg.Hooks.SwitchedOn(b.Host, b.Boot, b.On, time.Time{}, time.Time{})
		}
	}
}

// PowerOn switches host h on to be on at at (through the scheduler) and
// tells the hooks; it reports whether it did anything. The daemon calls
// it for `bora host on`.
func (c *Controller) PowerOn(now time.Time, h slottable.HostID, at time.Time) bool {
	c.noteBoots()
	s := c.s
	prevBoot, prevReady, planned := s.BootPlanned(h)
	if !c.cfg.Instant.IsZero() && now.Equal(c.cfg.Instant) {
		boot, shutdown := s.PowerTimes()
		s.SetPowerTimes(0, shutdown)
		defer s.SetPowerTimes(boot, shutdown)
	}
	bootTime, _ := s.PowerTimes()
	ready, err := s.PowerOn(now, h, at)
	if err != nil || (planned && !ready.Before(prevReady)) {
		return false
	}
	if !planned {
		prevBoot, prevReady = time.Time{}, time.Time{}
	}
	c.onSince[h] = ready
	if c.cfg.Hooks.SwitchedOn != nil {
		c.cfg.Hooks.SwitchedOn(h, ready.Add(-bootTime), ready, prevBoot, prevReady)
	}
	return true
}

// PowerOff switches host h off now (through the scheduler) and tells the
// hooks; it reports whether it did. A host Config.MayOff refuses is not.
func (c *Controller) PowerOff(now time.Time, h slottable.HostID) bool {
	if st := c.s.PowerState(h, now); st != scheduler.PowerOn || !c.mayOff(h) {
		return false
	}
	if c.cfg.SwitchOffAhead {
		if _, ok := c.s.NextReservation(h, now); ok {
			return c.powerOffAhead(now, h)
		}
	}
	if err := c.s.PowerOff(now, h); err != nil {
		return false
	}
	c.stats.SwitchedOff++
	if c.cfg.Hooks.SwitchedOff != nil {
		c.cfg.Hooks.SwitchedOff(h, now)
	}
	return true
}

// powerOffAhead switches host h off now with its boot planned to end when
// its next reservation begins, and tells the hooks: switched off now,
// switched on over the planned boot (counted in Stats.OffAhead).
func (c *Controller) powerOffAhead(now time.Time, h slottable.HostID) bool {
	boot, on, err := c.s.PowerOffAhead(now, h, c.cfg.AheadMinGap)
	if err != nil {
		return false
	}
	c.stats.SwitchedOff++
	c.stats.OffAhead++
	c.onSince[h] = on
	if c.cfg.Hooks.SwitchedOff != nil {
		c.cfg.Hooks.SwitchedOff(h, now)
	}
	if c.cfg.Hooks.SwitchedOn != nil {
		c.cfg.Hooks.SwitchedOn(h, boot, on, time.Time{}, time.Time{})
	}
	return true
}

// freeAhead reports whether host h, on, holds nothing at now and its next
// reservation begins late enough to switch it off until then
// (Config.SwitchOffAhead).
func (c *Controller) freeAhead(h slottable.HostID, now time.Time) bool {
	if !c.cfg.SwitchOffAhead {
		return false
	}
	next, ok := c.s.NextReservation(h, now)
	boot, shutdown := c.s.PowerTimes()
	return ok && next.After(now) && next.Sub(now) >= max(c.cfg.AheadMinGap, boot+shutdown)
}

// switchable reports whether host h can be switched on for a request at
// at: it is off or shutting down with no boot planned, or (later) its
// boot, not begun, is planned to end after at.
func (c *Controller) switchable(h slottable.HostID, now, at time.Time, later bool) bool {
	s := c.s
	if s.Evacuating(h) || (c.cfg.InService != nil && !c.cfg.InService(h)) {
		return false
	}
	boot, on, planned := s.BootPlanned(h)
	if later {
		return planned && boot.After(now) && on.After(at)
	}
	st := s.PowerState(h, now)
	return !planned && (st == scheduler.PowerOff || st == scheduler.PowerShuttingDown)
}

// keepFor returns the first n hosts in service (on, or switched on in
// time) that fit accepts: those a local lease of n hosts would take.
func (c *Controller) keepFor(n int, fit func(slottable.HostID) bool) map[slottable.HostID]bool {
	keep := map[slottable.HostID]bool{}
	for h := 0; h < c.s.Table().NumHosts() && len(keep) < n; h++ {
		id := slottable.HostID(h)
		if c.s.HostEnabled(id) && !c.s.Evacuating(id) && fit(id) {
			keep[id] = true
		}
	}
	return keep
}

// finishEvacuations switches off the hosts being emptied that are empty.
func (c *Controller) finishEvacuations(now time.Time) {
	keep := c.evac[:0]
	for _, h := range c.evac {
		if !c.s.Evacuating(h) || (len(c.s.LeasesOn(h, now)) == 0 && c.PowerOff(now, h)) {
			continue
		}
		keep = append(keep, h)
	}
	c.evac = keep
}
