package sim

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/slottable"
)

// Property tests over random traces. Each case is built from one seed by a
// *rand.Rand of its own, so a failing seed replays alone:
//
//	go test ./sim -run 'TestProperties/seed=17$' -v
//	go test ./sim -run TestProperties -prop.seeds=17,90001 -v
//	go test ./sim -run TestPropertyMinimise -prop.minimise=backfill/17 -prop.match='^\(g\)' -v
//
// The properties, each named by the letter its violations carry:
//
//	a  sim.Run neither fails (the invariant checker) nor panics, no host is
//	   ever over its CPU or memory, recomputed from the intervals, and the
//	   slot table never refuses a reservation the scheduler planned (an
//	   error log: with CheckInvariants off it would have over-committed)
//	r  the report's Gantt is exactly what the scheduler recorded (a run is
//	   reproducible: an independent driver gets the same reservations)
//	b  no local lease is ever preempted
//	c  every lease ends done, rejected or cancelled; nothing stays reserved
//	d  a done lease's vm intervals add up to VMs x its real duration (runs
//	   lost to a stop-and-requeue excepted)
//	e  only external preemptable leases are preempted, and only by local or
//	   advance-reservation leases at least as important
//	f  accepted advance reservations start at their requested start,
//	   immediate leases at their arrival (or when their preemptions are
//	   over), deadline leases never preempted end by their deadline
//	g  conservative backfilling: a best-effort lease starts no later than
//	   its first reservation, unless a fixed lease or a requeued preempted
//	   lease came ahead of it meanwhile
//	h  the driver is told to stop every VM it was told to start, and never
//	   to start VMs that already exist
//	m  a lease is counted (in the preemption metrics and its overhead)
//	   exactly the preemptions it underwent: as many suspensions and
//	   migrations as it has suspend intervals (those at the end of a
//	   planned short run excepted), as many cancels and requeues as it was
//	   told to stop, and the overhead h(L) of each
//	k  a migratable deadline lease is never cancelled by a preemption, and
//	   once preempted still ends by its deadline (and is not flagged as
//	   missing it), unless a local lease or an advance reservation arrived
//	   after its preemption was decided
//	x  suspend/resume/migrate operations of different leases never overlap
//	   on a host (exclusion local) or at all (exclusion global)

var (
	propSeeds    = flag.String("prop.seeds", "", "seeds TestProperties runs instead of its fixed list (e.g. 3,17,100-199)")
	propMinimise = flag.String("prop.minimise", "", "case TestPropertyMinimise shrinks: SEED, backfill/SEED or preempt/SEED")
	propMatch    = flag.String("prop.match", "", "regexp a violation must match for TestPropertyMinimise to keep a case, e.g. '^\\(g\\)'")
)

// propSize bounds a random case. Mode "backfill" holds only best-effort
// leases under conservative backfilling, so that property g is never
// excused by a fixed lease coming ahead; mode "preempt" makes every
// best-effort lease suspendable or migratable and every lease suspendable,
// with a preempting policy, so that suspensions, migrations and resumptions
// are many.
type propSize struct {
	minLeases, maxLeases, minHosts, maxHosts int
	mode                                     string
}

var propModes = []string{"", "backfill", "preempt"}

var (
	propFull  = propSize{minLeases: 30, maxLeases: 80, minHosts: 3, maxHosts: 12}
	propShort = propSize{minLeases: 10, maxLeases: 30, minHosts: 3, maxHosts: 6}
)

// propCase is one random trace with the cluster and configuration it runs on.
type propCase struct {
	seed uint64
	cfg  Config
	reqs []scheduler.Request
}

func (c propCase) String() string {
	s := c.cfg.Scheduler
	o := s.Overheads
	return fmt.Sprintf("seed %d: %d leases on %d hosts of %d cpu/%d MB; backfilling=%s(%d) policy=%s suspension=%s exclusion=%s migration=%s requeue=%v mapper=%s threshold=%g nonsched=%s wakeup=%s rates=%g/%g enact=%s shutdown=%s stop=%s",
		c.seed, len(c.reqs), c.cfg.Cluster.Hosts, c.cfg.Cluster.CPU, c.cfg.Cluster.Memory, s.Backfilling, s.MaxReservations,
		s.Policy, s.Suspension, s.Exclusion, s.Migration, s.Requeue, s.Mapper, s.ThresholdFactor, s.NonSchedulable,
		s.WakeUp, o.SuspendRate, o.ResumeRate, o.Enactment, o.Shutdown, o.Stop)
}

func pickOne[T any](rng *rand.Rand, vs ...T) T { return vs[rng.IntN(len(vs))] }

func propSecs(n int) time.Duration { return time.Duration(n) * time.Second }

// propConfig draws a scheduler configuration.
func propConfig(rng *rand.Rand) scheduler.Config {
	c := scheduler.DefaultConfig()
	c.CheckInvariants = true
	c.Backfilling = pickOne(rng, scheduler.BackfillConservative, scheduler.BackfillAggressive, scheduler.BackfillNone)
	c.MaxReservations = 1 + rng.IntN(3)
	c.Policy = pickOne(rng, preempt.NOP, preempt.MOV, preempt.MLIP, preempt.MOML)
	c.Suspension = pickOne(rng, scheduler.SuspensionNone, scheduler.SuspensionSerial, scheduler.SuspensionAll)
	c.Exclusion = pickOne(rng, scheduler.ExclusionLocal, scheduler.ExclusionGlobal)
	c.Migration = pickOne(rng, scheduler.MigrationNo, scheduler.MigrationYes, scheduler.MigrationNoTransfer)
	c.Requeue = rng.IntN(2) == 0
	c.Mapper = pickOne(rng, "pack", "spread")
	some := func(n int) bool { return rng.IntN(n) == 0 }
	if some(3) { // the GlusterFS testbed of docs/models.md §2
		c.Overheads.SuspendRate, c.Overheads.ResumeRate = 40, 40
	}
	if some(3) {
		c.Overheads.Enactment = propSecs(1 + rng.IntN(120))
	}
	if some(3) {
		c.Overheads.Shutdown = propSecs(1 + rng.IntN(60))
	}
	if some(3) {
		c.Overheads.Stop = propSecs(1 + rng.IntN(10))
	}
	if some(4) {
		c.ThresholdFactor = pickOne(rng, 0.5, 1, 2)
	}
	if some(8) {
		c.NonSchedulable = propSecs(60 * (1 + rng.IntN(10)))
	}
	if some(8) {
		c.WakeUp = pickOne(rng, 30*time.Second, time.Minute, 5*time.Minute)
	}
	return c
}

// propRequest draws the i-th request, arriving at at.
func propRequest(rng *rand.Rand, i int, at time.Duration) scheduler.Request {
	d := propSecs(60 * (10 + rng.IntN(230))) // 10 min to 4 h
	r := scheduler.Request{Name: strconv.Itoa(i + 1), Arrival: at, Duration: d, VMs: 1 + rng.IntN(6),
		CPU: 100, Memory: 512 + 256*rng.Int64N(7), Image: "img", Origin: scheduler.External}
	if rng.IntN(3) > 0 { // real <= requested
		r.Real = max(time.Second, time.Duration(float64(d)*(0.2+0.8*rng.Float64())).Truncate(time.Second))
	}
	switch k := rng.IntN(100); {
	case k < 55:
		r.Kind = scheduler.BestEffort
		r.Class = pickOne(rng, scheduler.Cancellable, scheduler.Suspendable, scheduler.Migratable)
		switch rng.IntN(8) {
		case 0: // a local one, which preempts external leases to start
			r.Origin, r.Class = scheduler.Local, scheduler.NonPreemptable
		case 1: // one with a deadline too
			r.Deadline = at + d + time.Duration(rng.Float64()*3*float64(d)).Truncate(time.Second)
		}
	case k < 72:
		r.Kind, r.Origin, r.Class = scheduler.AdvanceReservation, scheduler.Local, scheduler.NonPreemptable
		r.Start = at + propSecs(rng.IntN(4*3600+1))
	case k < 82:
		r.Kind, r.Origin, r.Class = scheduler.Immediate, scheduler.Local, scheduler.NonPreemptable
	case k < 95:
		r.Kind = scheduler.Deadline
		r.Class = pickOne(rng, scheduler.Migratable, scheduler.NonPreemptable)
		r.Deadline = at + d + time.Duration(rng.Float64()*3*float64(d)).Truncate(time.Second)
		if r.Class == scheduler.NonPreemptable && rng.IntN(2) == 0 {
			r.Origin = scheduler.Local // preempts, at its ready time or later
		}
	default: // an external advance reservation, of any class
		r.Kind, r.Start = scheduler.AdvanceReservation, at+propSecs(rng.IntN(4*3600+1))
		r.Class = pickOne(rng, scheduler.Cancellable, scheduler.Suspendable, scheduler.Migratable, scheduler.NonPreemptable)
	}
	return r
}

// propGen builds the case of one seed.
func propGen(seed uint64, sz propSize) propCase {
	c := propGenFrom(rand.New(rand.NewPCG(seed, 0x626f7261)), sz)
	c.seed, c.cfg.Name = seed, fmt.Sprintf("seed-%d", seed)
	return c
}

func propGenFrom(rng *rand.Rand, sz propSize) propCase {
	cl := Cluster{Hosts: sz.minHosts + rng.IntN(sz.maxHosts-sz.minHosts+1),
		CPU: 100 * (1 + rng.Int64N(4)), Memory: 1024 * (1 + rng.Int64N(4))}
	c := propCase{cfg: Config{Cluster: cl, Scheduler: propConfig(rng)}}
	n := sz.minLeases + rng.IntN(sz.maxLeases-sz.minLeases+1)
	var at time.Duration
	for i := range n {
		at += propSecs(rng.IntN(1200))
		r := propRequest(rng, i, at)
		switch {
		case sz.mode == "backfill":
			r.Kind, r.Origin, r.Start, r.Deadline = scheduler.BestEffort, scheduler.External, 0, 0
			r.Class = pickOne(rng, scheduler.Cancellable, scheduler.Suspendable, scheduler.Migratable)
		case sz.mode == "preempt" && r.Kind == scheduler.BestEffort && r.Origin == scheduler.External:
			r.Class = pickOne(rng, scheduler.Suspendable, scheduler.Migratable)
		}
		c.reqs = append(c.reqs, r)
	}
	switch sc := &c.cfg.Scheduler; sz.mode {
	case "backfill":
		sc.Backfilling = scheduler.BackfillConservative
	case "preempt":
		sc.Suspension, sc.Policy = scheduler.SuspensionAll, pickOne(rng, preempt.MOV, preempt.MLIP, preempt.MOML)
	}
	return c
}

// observed is a run seen through the scheduler's exported API only: every
// reservation as used (with its VMs), the actions, when each lease's plan
// first began and where its first reservation began.
type observed struct {
	s         *scheduler.Scheduler
	ivs       []scheduler.Interval
	began     map[scheduler.LeaseID]time.Time
	firstPlan map[scheduler.LeaseID]time.Time
	bad       []string // property h: the action stream's inconsistencies
	stops     map[scheduler.LeaseID]int
	errs      []string // what the scheduler logged at error level
}

// propLog collects the errors the scheduler reports (scheduler.Logger):
// each is a reservation it planned that the slot table refused, or a plan
// it could not carry out.
type propLog struct{ o *observed }

func (h propLog) LeaseError(id scheduler.LeaseID, what string, err error) {
	h.o.errs = append(h.o.errs, fmt.Sprintf("%s: %v (lease %v)", what, err, id))
}

func (propLog) Debug(string, map[string]any) {}

// propRun is what the real VMs of a lease do, as the simulator models it.
type propRun struct {
	left    time.Duration
	since   time.Time
	running bool // computing
	ended   bool // its real end has been delivered (once, as the engine does)
	alive   bool // the driver holds VMs for it
}

// propDrive plays the case like the simulator's engine does (arrivals,
// reservation boundaries and real ends, in that order at each time).
func propDrive(c propCase) (*observed, error) {
	t := slottable.New()
	for i := 0; i < c.cfg.Cluster.Hosts; i++ {
		if _, err := t.AddHost(fmt.Sprintf("host%03d", i), slottable.Resources{c.cfg.Cluster.CPU, c.cfg.Cluster.Memory}); err != nil {
			return nil, err
		}
	}
	o := &observed{began: map[scheduler.LeaseID]time.Time{}, firstPlan: map[scheduler.LeaseID]time.Time{},
		stops: map[scheduler.LeaseID]int{}}
	s, err := scheduler.New(c.cfg.Scheduler, t, Epoch, propLog{o})
	if err != nil {
		return nil, err
	}
	o.s = s
	s.Record = func(iv scheduler.Interval) { o.ivs = append(o.ivs, iv) }
	runs := map[scheduler.LeaseID]*propRun{}
	reqs := append([]scheduler.Request(nil), c.reqs...)
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].Arrival < reqs[j].Arrival })
	next := 0
	for steps := 0; ; steps++ {
		if steps > 1_000_000 {
			return o, fmt.Errorf("no end after %d steps", steps)
		}
		now, ok := s.NextEvent()
		consider := func(at time.Time) {
			if !ok || at.Before(now) {
				now, ok = at, true
			}
		}
		if next < len(reqs) {
			consider(Epoch.Add(reqs[next].Arrival))
		}
		for _, id := range propEnding(runs) {
			consider(runs[id].since.Add(runs[id].left))
		}
		if !ok {
			break
		}
		for _, id := range propEnding(runs) {
			if r := runs[id]; !r.since.Add(r.left).After(now) {
				r.ended = true
				o.handle(runs, s.Finished(now, id))
			}
		}
		o.handle(runs, s.Advance(now))
		for next < len(reqs) && !Epoch.Add(reqs[next].Arrival).After(now) {
			l, acts := s.Submit(now, reqs[next])
			runs[l.ID] = &propRun{left: reqs[next].RealDuration()}
			o.handle(runs, acts)
			next++
		}
	}
	for id, r := range runs {
		if r.alive {
			o.bad = append(o.bad, fmt.Sprintf("lease %d (%s) still has VMs when the run is over", id, s.Lease(id).State))
		}
	}
	return o, nil
}

// propEnding lists the leases computing whose end is still to come, by ID.
func propEnding(runs map[scheduler.LeaseID]*propRun) []scheduler.LeaseID {
	var ids []scheduler.LeaseID
	for id, r := range runs {
		if r.running && !r.ended {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// handle plays the actions and notes where newly scheduled leases are to
// begin.
func (o *observed) handle(runs map[scheduler.LeaseID]*propRun, acts []scheduler.Action) {
	for _, a := range acts {
		r := runs[a.Lease]
		if r == nil {
			continue
		}
		switch a.Op {
		case scheduler.ActStart, scheduler.ActResume:
			if _, ok := o.began[a.Lease]; !ok && a.Op == scheduler.ActStart {
				o.began[a.Lease] = a.At
			}
			if r.alive {
				o.bad = append(o.bad, fmt.Sprintf("lease %d: %s at %s while its VMs already exist", a.Lease, a.Op, a.At.Sub(Epoch)))
			}
			r.alive = true
		case scheduler.ActRun:
			if !r.alive {
				o.bad = append(o.bad, fmt.Sprintf("lease %d: run at %s without VMs", a.Lease, a.At.Sub(Epoch)))
			}
			r.running, r.ended, r.since = true, false, a.At
		case scheduler.ActSuspend, scheduler.ActStop, scheduler.ActShutdown, scheduler.ActDone:
			if r.running {
				r.left -= a.At.Sub(r.since)
				r.running = false
			}
			if a.Op == scheduler.ActStop {
				r.left = o.s.Lease(a.Lease).Req.RealDuration()
				o.stops[a.Lease]++
			}
			r.alive = false
		}
	}
	for _, l := range o.s.Leases() {
		if _, ok := o.firstPlan[l.ID]; !ok && l.State == scheduler.Scheduled {
			o.firstPlan[l.ID] = l.PlannedStart()
		}
	}
}

// violation is one broken property.
type violation struct {
	prop byte
	msg  string
}

func (v violation) String() string { return fmt.Sprintf("(%c) %s", v.prop, v.msg) }

// propSafely runs f, turning a panic into an error with its stack.
func propSafely(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return f()
}

// propCheck runs the case through sim.Run and the independent driver and
// returns every violation of the properties in only (all when empty).
func propCheck(c propCase, only string) []violation {
	var out []violation
	add := func(p byte, format string, args ...any) {
		if only == "" || strings.IndexByte(only, p) >= 0 {
			out = append(out, violation{p, fmt.Sprintf(format, args...)})
		}
	}
	var r *report.Report
	if err := propSafely(func() (err error) { r, err = Run(c.cfg, c.reqs); return err }); err != nil {
		add('a', "sim.Run: %v", err)
		return out
	}
	var o *observed
	if err := propSafely(func() (err error) { o, err = propDrive(c); return err }); err != nil {
		add('a', "driving the scheduler: %v", err)
		return out
	}
	for _, e := range o.errs {
		add('a', "scheduler error: %s", e)
	}
	propCapacity(c, o, add)
	propSameGantt(r, o, add)
	for _, m := range o.bad {
		add('h', "%s", m)
	}
	if n := o.s.Table().Len(); n > 0 {
		add('c', "%d reservations left in the slot table", n)
	}
	for _, l := range r.Leases {
		if l.State != string(scheduler.Done) && l.State != string(scheduler.Rejected) && l.State != string(scheduler.Cancelled) {
			add('c', "lease %d (%s %s) ends %s", l.ID, l.Origin, l.Kind, l.State)
		}
	}
	byLease := map[scheduler.LeaseID][]scheduler.Interval{}
	for _, iv := range o.ivs {
		byLease[iv.Lease] = append(byLease[iv.Lease], iv)
	}
	for _, l := range o.s.Leases() {
		propLease(c, o, l, byLease, add)
	}
	propExclusion(c, o.ivs, add)
	return out
}

type addFunc func(p byte, format string, args ...any)

// propCapacity recomputes each host's CPU and memory over time from the
// recorded intervals (property a).
func propCapacity(c propCase, o *observed, add addFunc) {
	type step struct {
		at       time.Time
		cpu, mem int64
	}
	perHost := map[slottable.HostID][]step{}
	for _, iv := range o.ivs {
		l := o.s.Lease(iv.Lease)
		if iv.CPU != int64(iv.VMs)*l.Req.CPU {
			add('a', "lease %d on host %d: %d cpu recorded for %d VMs of %d", iv.Lease, iv.Host, iv.CPU, iv.VMs, l.Req.CPU)
		}
		mem := int64(iv.VMs) * l.Req.Memory
		perHost[iv.Host] = append(perHost[iv.Host], step{iv.Start, iv.CPU, mem}, step{iv.End, -iv.CPU, -mem})
	}
	for h, steps := range perHost {
		// Ends before starts at the same instant: intervals are half-open.
		sort.SliceStable(steps, func(i, j int) bool {
			if !steps[i].at.Equal(steps[j].at) {
				return steps[i].at.Before(steps[j].at)
			}
			return steps[i].cpu < steps[j].cpu
		})
		var cpu, mem int64
		for _, st := range steps {
			cpu, mem = cpu+st.cpu, mem+st.mem
			if cpu > c.cfg.Cluster.CPU || mem > c.cfg.Cluster.Memory {
				add('a', "host %d holds %d cpu / %d MB at %s (capacity %d / %d)", h, cpu, mem, st.at.Sub(Epoch), c.cfg.Cluster.CPU, c.cfg.Cluster.Memory)
				break
			}
		}
	}
}

// propSameGantt compares the report's Gantt with the driver's intervals as
// multisets (property r).
func propSameGantt(r *report.Report, o *observed, add addFunc) {
	key := func(lease uint64, host int, kind string, s, e float64) string {
		return fmt.Sprintf("lease %d %s @%d %.3f-%.3f", lease, kind, host, s, e)
	}
	count := map[string]int{}
	for _, iv := range r.Gantt {
		count[key(iv.Lease, iv.Host, iv.Kind, iv.StartS, iv.EndS)]++
	}
	for _, iv := range o.ivs {
		count[key(iv.Lease, int(iv.Host), iv.Kind, secs(iv.Start), secs(iv.End))]--
	}
	for k, n := range count {
		if n != 0 {
			add('r', "%s: %+d in the report's Gantt against the driver's", k, n)
		}
	}
}

var (
	propByLease = regexp.MustCompile(`by lease (\d+)`)
	propVictims = regexp.MustCompile(`preempted leases \[([0-9 ]*)\]`)
	// propDecision is the history entry of a decision to preempt (the
	// state changes that follow carry "by lease" too).
	propDecision = regexp.MustCompile(`^[a-z]+ at .* by lease \d+`)
)

// importance orders leases: local, then external non-preemptable, then
// external preemptable.
func importance(l *scheduler.Lease) int {
	switch {
	case l.Req.Origin == scheduler.Local:
		return 2
	case !preemptable(l):
		return 1
	}
	return 0
}

// preemptable is the rule of docs/ARCHITECTURE.md written out apart from
// the scheduler's (scheduler.OriginRule): only external leases whose class
// is not non-preemptable are ever preempted.
func preemptable(l *scheduler.Lease) bool {
	return l.Req.Origin == scheduler.External && l.Req.Class != scheduler.NonPreemptable
}

// propLease checks one lease's properties b, d, e, f, g and m.
func propLease(c propCase, o *observed, l *scheduler.Lease, byLease map[scheduler.LeaseID][]scheduler.Interval, add addFunc) {
	ivs := byLease[l.ID]
	name := fmt.Sprintf("lease %d (%s %s %s, %d VMs, arrives %s)", l.ID, l.Req.Origin, l.Req.Kind, l.Req.Class, l.Req.VMs, l.Req.Arrival)
	ops := 0
	for _, iv := range ivs {
		if iv.Kind == "suspend" || iv.Kind == "stop" || iv.Kind == "migrate" {
			ops++
		}
	}
	// b, e: who may be preempted, and by whom.
	if l.Req.Origin == scheduler.Local && (l.Preemptions > 0 || ops > 0) {
		add('b', "%s: %d preemptions, %d suspend/stop/migrate intervals", name, l.Preemptions, ops)
	}
	if !preemptable(l) && (l.Preemptions > 0 || ops > 0) {
		add('e', "%s is not preemptable but has %d preemptions, %d suspend/stop/migrate intervals", name, l.Preemptions, ops)
	}
	for _, ev := range l.History {
		if ev.Reason != scheduler.ReasonPreempted {
			continue
		}
		m := propByLease.FindStringSubmatch(ev.Detail)
		if m == nil {
			continue
		}
		id, _ := strconv.ParseUint(m[1], 10, 64)
		by := o.s.Lease(id)
		if by == nil || (by.Req.Origin != scheduler.Local && by.Req.Kind != scheduler.AdvanceReservation) || importance(by) < importance(l) {
			add('e', "%s preempted at %s by %s", name, ev.At.Sub(Epoch), ev.Detail)
		}
	}
	propCounted(c, o, l, ivs, name, add)
	// d: the work of a done lease is its real duration.
	if l.State == scheduler.Done {
		var from time.Time // runs before the last requeue from scratch are lost
		if l.Ops[scheduler.OpRequeue] > 0 {
			for _, ev := range l.History {
				if ev.State == scheduler.Queued && ev.Reason == scheduler.ReasonPreempted {
					from = ev.At
				}
			}
		}
		var work time.Duration
		n := 0
		for _, iv := range ivs {
			if iv.Kind == "vm" && !iv.Start.Before(from) {
				work += time.Duration(iv.VMs) * iv.End.Sub(iv.Start)
				n++
			}
		}
		want := time.Duration(l.Req.VMs) * l.Req.RealDuration()
		if diff := (work - want).Abs(); diff > time.Duration(max(n, 1))*time.Millisecond {
			add('d', "%s done with %s of VM time in %d intervals, want %d x %s = %s", name, work, n, l.Req.VMs, l.Req.RealDuration(), want)
		}
	}
	propStarts(c, o, l, name, add)
	propDeadlineKept(o, l, name, add)
}

// propDeadlineKept checks that a migratable deadline lease keeps its
// deadline when preempted (property k).
func propDeadlineKept(o *observed, l *scheduler.Lease, name string, add addFunc) {
	if l.Req.Kind != scheduler.Deadline || l.Req.Class != scheduler.Migratable {
		return
	}
	if l.Ops[scheduler.OpCancel] > 0 {
		add('k', "%s was cancelled by a preemption", name)
	}
	var decided, missed time.Time
	for _, ev := range l.History {
		if decided.IsZero() && ev.Reason == scheduler.ReasonPreempted && propDecision.MatchString(ev.Detail) {
			decided = ev.At
		}
		if missed.IsZero() && ev.Reason == scheduler.ReasonDeadlineMissed {
			missed = ev.At
		}
	}
	if l.State == scheduler.Done && l.End.After(l.Deadline) && (missed.IsZero() || l.End.Before(missed)) {
		missed = l.End
	}
	if decided.IsZero() || missed.IsZero() || missed.Before(decided) {
		return
	}
	for _, q := range o.s.Leases() {
		if (q.Req.Origin == scheduler.Local || q.Req.Kind == scheduler.AdvanceReservation) && q.Submitted.After(decided) && !q.Submitted.After(missed) {
			return // it may have taken the room
		}
	}
	add('k', "%s, preempted at %s, misses its deadline %s (noticed at %s) though no local lease or reservation arrived meanwhile",
		name, decided.Sub(Epoch), l.Req.Deadline, missed.Sub(Epoch))
}

// propCounted checks that lease l is counted the preemptions it underwent
// (property m).
func propCounted(c propCase, o *observed, l *scheduler.Lease, ivs []scheduler.Interval, name string, add addFunc) {
	phases := map[time.Time]bool{}
	for _, iv := range ivs {
		if iv.Kind == "suspend" {
			phases[iv.Start] = true
		}
	}
	gapEnds := 0
	for _, ev := range l.History {
		if ev.State == scheduler.Suspended && ev.Reason == scheduler.ReasonGapEnded {
			gapEnds++
		}
	}
	if n := l.Ops[scheduler.OpSuspend] + l.Ops[scheduler.OpMigrate]; n != len(phases)-gapEnds {
		add('m', "%s is counted %d suspensions or migrations (overhead %s) but was suspended %d times by preemption (%d more at the end of a short run)",
			name, n, l.Overhead, len(phases)-gapEnds, gapEnds)
	}
	if n := l.Ops[scheduler.OpCancel] + l.Ops[scheduler.OpRequeue]; n != o.stops[l.ID] {
		add('m', "%s is counted %d cancels or requeues but was stopped %d times", name, n, o.stops[l.ID])
	}
	mems := make([]int64, l.Req.VMs)
	for i := range mems {
		mems[i] = l.Req.Memory
	}
	var want time.Duration
	n := 0
	for op, k := range l.Ops {
		want += time.Duration(k) * scheduler.PreemptionCost(c.cfg.Scheduler.Overheads, op, mems)
		n += k
	}
	// On local storage the cost is charged on the hosts the lease ran on
	// (docs/models.md §2): at most want, all VMs taken as on one host.
	charged := l.Overhead == want || (c.cfg.Scheduler.Overheads.Local() && l.Overhead <= want)
	if !charged || l.Preemptions != n {
		add('m', "%s is counted %d preemptions and %s of overhead for operations %v (want %d, %s)", name, l.Preemptions, l.Overhead, l.Ops, n, want)
	}
}

// propStarts checks when fixed leases start and end (f) and that conservative
// backfilling keeps its promises (g).
func propStarts(c propCase, o *observed, l *scheduler.Lease, name string, add addFunc) {
	began, ok := o.began[l.ID]
	accepted := l.State != scheduler.Rejected
	switch l.Req.Kind {
	case scheduler.AdvanceReservation:
		if accepted && l.Preemptions == 0 && (!ok || !began.Equal(Epoch.Add(l.Req.Start))) {
			add('f', "%s ends %s; its plan began at %s (started: %v), want its requested start %s", name, l.State, began.Sub(Epoch), ok, l.Req.Start)
		}
		if accepted && l.Req.Origin == scheduler.Local && l.State != scheduler.Done {
			add('f', "%s was accepted but ends %s", name, l.State)
		}
	case scheduler.Immediate:
		if !accepted || l.Preemptions > 0 {
			break
		}
		want, exact := propImmediateStart(o, l)
		plan, planned := o.firstPlan[l.ID]
		if !ok || began.Before(want) || (exact && !began.Equal(want)) || (!exact && planned && began.After(plan)) {
			add('f', "%s began at %s (started: %v), want %s: its arrival or the end of the preemptions it caused (exact: %v)", name, began.Sub(Epoch), ok, want.Sub(Epoch), exact)
		}
	case scheduler.Deadline:
		if l.State == scheduler.Done && l.Preemptions == 0 && l.End.After(l.Deadline) {
			add('f', "%s ends at %s, after its deadline %s", name, l.End.Sub(Epoch), l.Req.Deadline)
		}
	case scheduler.BestEffort:
		plan, planned := o.firstPlan[l.ID]
		if c.cfg.Scheduler.Backfilling != scheduler.BackfillConservative || !planned || !ok || !began.After(plan) {
			break
		}
		if why := propOvertaken(o, l, plan); why == "" {
			add('g', "%s first reserved to begin at %s (submitted %s), began at %s", name, plan.Sub(Epoch), l.Submitted.Sub(Epoch), began.Sub(Epoch))
		}
	}
}

// propImmediateStart is when immediate lease l should begin: at its
// arrival, or when the last operation of the leases it preempted is over.
// Not exact when an operation left no interval (a victim that ended on its
// own first, or a stop that takes no time) or a victim was preempted more
// than once: then l should begin no earlier, and no later than first
// planned.
func propImmediateStart(o *observed, l *scheduler.Lease) (time.Time, bool) {
	want, exact := l.Submitted, true
	for _, ev := range l.History {
		m := propVictims.FindStringSubmatch(ev.Detail)
		if m == nil {
			continue
		}
		for _, f := range strings.Fields(m[1]) {
			id, _ := strconv.ParseUint(f, 10, 64)
			if propOp(o.s.Lease(id), l.ID) == scheduler.OpUnreserve {
				continue // it had not begun: nothing to wait for
			}
			end, found := time.Time{}, false
			for _, iv := range o.ivs {
				if iv.Lease == id && (iv.Kind == "suspend" || iv.Kind == "stop") && !iv.Start.Before(l.Submitted) && (!found || iv.End.Before(end)) {
					end, found = iv.End, true
				}
			}
			// A victim preempted again by a later lease may be suspended
			// earlier than l was promised.
			exact = exact && found && propDecisions(o.s.Lease(id)) == 1
			if found && end.After(want) {
				want = end
			}
		}
	}
	return want, exact
}

// propDecisions is how many preemptions were decided for v, including
// those taken back because another replaced them.
func propDecisions(v *scheduler.Lease) int {
	n := 0
	for _, ev := range v.History {
		if ev.Reason == scheduler.ReasonPreempted && propDecision.MatchString(ev.Detail) {
			n++
		}
	}
	return n
}

// propOp is what lease by's preemption did to v.
func propOp(v *scheduler.Lease, by scheduler.LeaseID) scheduler.Operation {
	tag := fmt.Sprintf("by lease %d ", by)
	for _, ev := range v.History {
		if ev.Reason == scheduler.ReasonPreempted && strings.Contains(ev.Detail, tag) {
			op, _, _ := strings.Cut(ev.Detail, " ")
			return scheduler.Operation(op)
		}
	}
	return ""
}

// propOvertaken names what legitimately came ahead of best-effort lease l
// between its submission and its first planned start: a fixed lease
// submitted, a preempted lease put back at the head of the queue, or l
// itself preempted or made to give way to a lease that must end by its
// deadline. Empty when nothing did.
func propOvertaken(o *observed, l *scheduler.Lease, plan time.Time) string {
	within := func(t time.Time) bool { return !t.Before(l.Submitted) && !t.After(plan) }
	for _, q := range o.s.Leases() {
		if q.Req.Kind != scheduler.BestEffort && within(q.Submitted) {
			return fmt.Sprintf("%s lease %d submitted at %s", q.Req.Kind, q.ID, q.Submitted.Sub(Epoch))
		}
		for _, ev := range q.History {
			if ev.Reason == scheduler.ReasonPreempted && within(ev.At) && (q.ID == l.ID || ev.State == scheduler.Queued || ev.State == scheduler.Suspended) {
				return fmt.Sprintf("lease %d %s (preempted) at %s", q.ID, ev.State, ev.At.Sub(Epoch))
			}
			if ev.Reason == scheduler.ReasonDisplaced && q.ID == l.ID && within(ev.At) {
				return fmt.Sprintf("it gave way at %s (%s)", ev.At.Sub(Epoch), ev.Detail)
			}
		}
	}
	return ""
}

// propExclusion checks that image operations of different leases do not
// overlap where the exclusion setting forbids it (property x).
func propExclusion(c propCase, ivs []scheduler.Interval, add addFunc) {
	var ops []scheduler.Interval
	for _, iv := range ivs {
		if iv.Kind == "suspend" || iv.Kind == "resume" || iv.Kind == "migrate" {
			ops = append(ops, iv)
		}
	}
	global := c.cfg.Scheduler.Exclusion == scheduler.ExclusionGlobal
	for i, a := range ops {
		for _, b := range ops[i+1:] {
			if a.Lease != b.Lease && (global || a.Host == b.Host) && a.Start.Before(b.End) && b.Start.Before(a.End) {
				add('x', "exclusion %s: lease %d %s @%d %s-%s overlaps lease %d %s @%d %s-%s", c.cfg.Scheduler.Exclusion,
					a.Lease, a.Kind, a.Host, a.Start.Sub(Epoch), a.End.Sub(Epoch), b.Lease, b.Kind, b.Host, b.Start.Sub(Epoch), b.End.Sub(Epoch))
				return
			}
		}
	}
}

// propKnown lists the cases of TestProperties that fail because of a known,
// reported bug the scheduler still has: subtest name -> "letters: bug",
// the properties it breaks. Such a case is skipped (see propReport).
// None is open.
var propKnown = map[string]string{}

// propSeedList is -prop.seeds (e.g. 3,17,100-199), or seeds 1 to 50 (15
// with -short).
func propSeedList(t *testing.T) []uint64 {
	spec := *propSeeds
	if spec == "" {
		spec = map[bool]string{false: "1-50", true: "1-15"}[testing.Short()]
	}
	var out []uint64
	for _, f := range strings.Split(spec, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(f), "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.ParseUint(lo, 10, 64)
		b, err2 := strconv.ParseUint(hi, 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("-prop.seeds %q: want seeds and ranges like 3,17,100-199", spec)
		}
		for n := a; n <= b; n++ {
			out = append(out, n)
		}
	}
	return out
}

// TestProperties checks every property on the fixed list of seeds, for a
// mixed trace and in modes backfill and preempt (see propSize).
func TestProperties(t *testing.T) {
	sz := propFull
	if testing.Short() {
		sz = propShort
	}
	for _, seed := range propSeedList(t) {
		for _, mode := range propModes {
			name, sz := fmt.Sprintf("seed=%d", seed), sz
			if sz.mode = mode; mode != "" {
				name = mode + "/" + name
			}
			t.Run(name, func(t *testing.T) {
				c := propGen(seed, sz)
				t.Logf("%v", c)
				propReport(t, propCheck(c, ""), propKnown[name])
			})
		}
	}
}

// propReport fails t with every violation, except that a case whose
// violations are all of the properties a known bug breaks ("m: what") is
// skipped, naming the bug.
func propReport(t *testing.T, vs []violation, known string) {
	t.Helper()
	letters, _, _ := strings.Cut(known, ":")
	n := 0
	for _, v := range vs {
		if known == "" || strings.IndexByte(letters, v.prop) < 0 {
			t.Errorf("%v", v)
			n++
		}
	}
	if n == 0 && len(vs) > 0 {
		for _, v := range vs {
			t.Logf("%v", v)
		}
		t.Skipf("known bug (%s)", known)
	}
}

// TestPropertyMinimise shrinks the case of -prop.minimise: it drops requests
// one at a time (and hosts) while a violation matching -prop.match is still
// there, and prints what is left as Go literals.
func TestPropertyMinimise(t *testing.T) {
	if *propMinimise == "" {
		t.Skip("set -prop.minimise=SEED, backfill/SEED or preempt/SEED")
	}
	sz, match := propFull, regexp.MustCompile(*propMatch)
	mode, num, ok := strings.Cut(*propMinimise, "/")
	if !ok {
		mode, num = "", mode
	}
	seed, err := strconv.ParseUint(num, 10, 64)
	if err != nil || !slices.Contains(propModes, mode) {
		t.Fatalf("-prop.minimise=%s: want SEED, backfill/SEED or preempt/SEED", *propMinimise)
	}
	sz.mode = mode
	c := propGen(seed, sz)
	fails := func(c propCase) bool {
		return slices.ContainsFunc(propCheck(c, ""), func(v violation) bool { return match.MatchString(v.String()) })
	}
	if !fails(c) {
		t.Fatalf("%v: no violation matches %s", c, match)
	}
	for changed := true; changed; {
		changed = false
		for i := len(c.reqs) - 1; i >= 0; i-- {
			try := c
			try.reqs = slices.Delete(slices.Clone(c.reqs), i, i+1)
			if fails(try) {
				c, changed = try, true
			}
		}
		for c.cfg.Cluster.Hosts > 1 {
			try := c
			try.cfg.Cluster.Hosts--
			if !fails(try) {
				break
			}
			c, changed = try, true
		}
	}
	t.Logf("%v", c)
	for _, r := range c.reqs {
		t.Logf("%#v", r)
	}
	for _, v := range propCheck(c, "") {
		t.Logf("%v", v)
	}
	if o, err := propDrive(c); err == nil {
		for _, iv := range o.ivs {
			t.Logf("lease %d %s @%d %s-%s (%d VMs)", iv.Lease, iv.Kind, iv.Host, iv.Start.Sub(Epoch), iv.End.Sub(Epoch), iv.VMs)
		}
		for _, l := range o.s.Leases() {
			t.Logf("lease %d: %v", l.ID, l.History)
		}
	}
}

// propReq is a request of the hand-made cases: VMs of 100 cpu and mem MB
// arriving at at (minutes), for d minutes (real: 0 = all of them); local
// leases are non-preemptable, an advance reservation starts at start.
func propReq(kind scheduler.Kind, class scheduler.Class, at, start float64, vms int, mem int64, d, real float64) scheduler.Request {
	min := func(f float64) time.Duration { return time.Duration(f * float64(time.Minute)) }
	r := scheduler.Request{Arrival: min(at), Kind: kind, Start: min(start), Duration: min(d), Real: min(real),
		VMs: vms, CPU: 100, Memory: mem, Class: class, Origin: scheduler.External}
	if class == scheduler.NonPreemptable {
		r.Origin = scheduler.Local
	}
	return r
}

// TestPropertyCases are failures the random cases found, shrunk by hand to
// the fewest leases; each comment works the timeline out (minutes; L^s and
// L^r of a 1024 MB VM are 163.311 s and 126.113 s).
func TestPropertyCases(t *testing.T) {
	be, ar, imm := scheduler.BestEffort, scheduler.AdvanceReservation, scheduler.Immediate
	susp, local := scheduler.Suspendable, scheduler.NonPreemptable
	cases := []struct {
		name     string
		cpu, mem int64 // one host
		cfg      func(*scheduler.Config)
		reqs     []scheduler.Request
	}{
		// L1 (reserved to 100) ends at 10; the queue is planned again in
		// queue order: A (2 VMs, reserved at 100) takes [20, 80) first, and B
		// (reserved at 20, beside L0) moves to 80.
		{"compression-delays-backfilled-lease", 200, 2048, nil, []scheduler.Request{
			propReq(be, susp, 0, 0, 1, 512, 20, 0), propReq(be, susp, 0, 0, 1, 512, 100, 10),
			propReq(be, susp, 1, 0, 2, 512, 60, 0), propReq(be, susp, 2, 0, 1, 512, 50, 0)}},
		// Non-schedulable interval 40: L1 holds [40, 100), A is reserved at
		// 100; L1 ends at 70, the queue is planned again from 110.
		{"nonschedulable-interval-delays-reservation", 100, 1024, func(c *scheduler.Config) { c.NonSchedulable = 40 * time.Minute },
			[]scheduler.Request{propReq(be, susp, 0, 0, 1, 1024, 60, 30), propReq(be, susp, 1, 0, 1, 1024, 30, 0)}},
		// I (1 min) at 55 needs V's host; V (running to 56) is suspended over
		// [55, 57.72), past its end into W's [56, 57): the table refuses it
		// (logged error; V is then "suspended" without a suspend action) or,
		// unchecked, the host holds 200 cpu over [56, 57).
		{"suspension-past-victim-end", 100, 1024, nil, []scheduler.Request{
			propReq(be, susp, 0, 0, 1, 1024, 56, 0), propReq(ar, local, 1, 56, 1, 1024, 1, 0), propReq(imm, local, 55, 0, 1, 1024, 1, 0)}},
		{"suspension-past-victim-end-unchecked", 100, 1024, func(c *scheduler.Config) { c.CheckInvariants = false }, []scheduler.Request{
			propReq(be, susp, 0, 0, 1, 1024, 56, 0), propReq(ar, local, 1, 56, 1, 1024, 1, 0), propReq(imm, local, 55, 0, 1, 1024, 1, 0)}},
		// A is suspended for R [30, 40) and resumes over [40, 42.10); I at 41
		// suspends B over [41, 43.72) on the same host (exclusion local).
		{"preemption-ignores-resumption-in-progress", 200, 2048, nil, []scheduler.Request{
			propReq(be, susp, 0, 0, 1, 1024, 120, 0), propReq(ar, local, 1, 30, 2, 1024, 10, 0),
			propReq(be, susp, 2, 0, 1, 1024, 100, 0), propReq(imm, local, 41, 0, 1, 1024, 10, 0)}},
		// Threshold factor 1: A and B cannot run 120 before R [60, 120) and
		// get short runs on the same host, both suspended over [57.28, 60).
		{"short-runs-suspend-together", 200, 2048, func(c *scheduler.Config) { c.ThresholdFactor = 1 }, []scheduler.Request{
			propReq(ar, local, 0, 60, 2, 1024, 60, 0), propReq(be, susp, 1, 0, 1, 1024, 120, 0), propReq(be, susp, 2, 0, 1, 1024, 120, 0)}},
		// Non-schedulable 10, threshold factor 1: Y holds [10, 70), X [70,
		// 190), Z [190, 250). Y ends at 65: replanned from 75, X gets a
		// short run [75, 187.3) + suspend, later than 70, so its old plan is
		// restored, keeping the short run's "suspend at the end": X runs
		// its whole time to 190 and is then "suspended" with no suspend
		// phase or action, and resumed while its VMs still run.
		{"restored-plan-keeps-short-run-suspension", 100, 1024, func(c *scheduler.Config) {
			c.NonSchedulable, c.ThresholdFactor = 10*time.Minute, 1
		}, []scheduler.Request{
			propReq(be, susp, 0, 0, 1, 1024, 60, 55), propReq(be, susp, 1, 0, 1, 1024, 120, 0), propReq(be, susp, 2, 0, 1, 1024, 60, 0)}},
		// Shutdown 30 s, stop 0: R at 50:10 stops V there (requeue off:
		// cancel). V ends on its own at 50:00 and Finished reserves its
		// shutdown over [50:00, 50:30), into R's reservation from 50:10.
		{"shutdown-after-early-end-overlaps-preemptor", 100, 1024, func(c *scheduler.Config) { c.Overheads.Shutdown = 30 * time.Second },
			[]scheduler.Request{propReq(be, scheduler.Cancellable, 0, 0, 1, 1024, 60, 50), propReq(ar, local, 10, 50+1.0/6, 1, 1024, 30, 0)}},
		// V runs from 0; R1 (arrives 10) has it suspended over [97.28,
		// 100); R2 (arrives 20) has it suspended over [47.28, 50) instead.
		// V is suspended once and counted twice (2 preemptions, overhead
		// 2 x 289.425 s).
		{"second-preemption-counted-twice", 100, 1024, nil, []scheduler.Request{
			propReq(be, susp, 0, 0, 1, 1024, 300, 0), propReq(ar, local, 10, 100, 1, 1024, 30, 0), propReq(ar, local, 20, 50, 1, 1024, 10, 0)}},
		// R (arrives 10) has V suspended over [97.28, 100), but V ends on
		// its own at 40: never suspended, yet counted preempted (metrics
		// by operation, overhead 289.425 s).
		{"preemption-counted-for-lease-that-ended-first", 100, 1024, nil, []scheduler.Request{
			propReq(be, susp, 0, 0, 1, 1024, 300, 40), propReq(ar, local, 10, 100, 1, 1024, 30, 0)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc := scheduler.DefaultConfig()
			sc.CheckInvariants = true
			if tc.cfg != nil {
				tc.cfg(&sc)
			}
			c := propCase{cfg: Config{Name: tc.name, Cluster: Cluster{Hosts: 1, CPU: tc.cpu, Memory: tc.mem}, Scheduler: sc}, reqs: tc.reqs}
			for i := range c.reqs {
				c.reqs[i].Name = strconv.Itoa(i + 1)
			}
			propReport(t, propCheck(c, ""), propKnownCases[tc.name])
		})
	}
}

// propKnownCases lists the hand-made cases of bugs still open, as propKnown.
var propKnownCases = map[string]string{}

// propBytes is a rand.Source reading a fuzz input 8 bytes at a time, then
// a PCG once the input is used up, so that every draw of propGenFrom maps
// to a few input bytes.
type propBytes struct {
	data []byte
	pcg  *rand.PCG
}

func (b *propBytes) Uint64() uint64 {
	if len(b.data) == 0 {
		return b.pcg.Uint64()
	}
	var v uint64
	for i := 0; i < 8 && len(b.data) > 0; i++ {
		v, b.data = v<<8|uint64(b.data[0]), b.data[1:]
	}
	return v
}

// FuzzSimulate checks that no input (read as the random draws of a case of
// 1 to 12 leases on 1 to 4 hosts) makes the simulation panic, fail its
// invariant checks or over-commit a host (a), or leave a lease unfinished
// (c).
func FuzzSimulate(f *testing.F) {
	f.Add([]byte{0, 1, 1, 1, 8, 0, 0, 0, 1, 2, 60, 200, 1, 2, 1, 1, 2, 30, 0, 10, 3, 1, 0, 10, 0})
	f.Add([]byte("\x02\x03\x03\x45\x14\x05\x00\x05\x03\x01\x5a\x64\x0a\x16\x02\x04\x1e\x00\x02\x0d\x00\x01\x14\xff"))
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := propGenFrom(rand.New(&propBytes{data: data, pcg: rand.NewPCG(uint64(len(data)), 1)}), propSize{minLeases: 1, maxLeases: 12, minHosts: 1, maxHosts: 4})
		for _, v := range propCheck(c, "ac") {
			t.Errorf("%v\n%v\n%v", v, c, c.reqs)
		}
	})
}
