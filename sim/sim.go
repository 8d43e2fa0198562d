package sim

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/bora-sched/bora/admission"
	"github.com/bora-sched/bora/cluster"
	"github.com/bora-sched/bora/internal/minheap"
	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// Epoch is the simulated clock's zero: trace offsets are added to it.
var Epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Cluster describes the simulated hosts (all alike). It is the shape the
// configuration file's cluster section holds (package cluster).
type Cluster = cluster.Shape

// Config is one simulation run.
type Config struct {
	Name    string // shown as the run's column in a sweep
	Trace   string // where the requests came from, for the report
	Cluster Cluster
	// ClusterSource says where Cluster came from, for the report
	// (report.Cluster: site, flags, site+flags, config or default).
	ClusterSource string
	Scheduler     scheduler.Config
	// Options are echoed in the report (the settings that made the run).
	Options map[string]string
	// Energy is the energy management of the run (energy.go); the zero
	// value models none.
	Energy EnergyConfig
	// Admission is the admission stage of external leases (admission.go,
	// docs/models.md §4); nil runs none: every request goes to the
	// scheduler and the report has no admission metrics.
	Admission *admission.Config
	// Progress, when set, is called after every event of the loop with
	// how far the run has got (progress.go); it must not keep the value.
	// It only observes: the run's decisions do not depend on it.
	Progress func(Progress)
}

// Run simulates the requests (sorted by arrival) and reports what happened.
// It fails when the configuration is invalid; the requests themselves are
// decided by the scheduler (an invalid one is rejected with its reason).
func Run(cfg Config, reqs []scheduler.Request) (*report.Report, error) {
	return RunContext(context.Background(), cfg, reqs)
}

// RunContext is Run, stopping when ctx is done: it checks ctx after every
// event of the loop (a check that decides nothing, so a run that is not
// stopped reports exactly what Run does) and returns an error wrapping
// ErrStopped and ctx's cause that says how far the run got.
func RunContext(ctx context.Context, cfg Config, reqs []scheduler.Request) (*report.Report, error) {
	started := time.Now()
	e, sorted, err := prepare(cfg, reqs)
	if err != nil {
		return nil, err
	}
	if err := e.loop(ctx, sorted, 0); err != nil {
		return nil, err
	}
	return e.finish(cfg, started)
}

// finish checks the invariants (when asked) and makes the run's report.
func (e *engine) finish(cfg Config, started time.Time) (*report.Report, error) {
	if cfg.Scheduler.CheckInvariants {
		if err := e.s.Check(); err != nil {
			return nil, fmt.Errorf("invariant checker: %w", err)
		}
	}
	r := e.report(cfg)
	if err := e.power.report(r); err != nil { // energy_report.go
		return nil, err
	}
	r.Metrics.WallSeconds = time.Since(started).Seconds()
	return r, nil
}

// engine is the discrete-event loop: it plays the driver for the
// scheduler, knowing each lease's real run time.
type engine struct {
	s      *scheduler.Scheduler
	cfg    Config
	real   map[scheduler.LeaseID]*realState
	ends   minheap.Heap[realEnd]
	gantt  ganttLog // the Gantt chart as recorded (gantt.go)
	events int
	power  *powerCtl       // energy management (energy.go); nil without
	adm    *admissionStage // admission of external leases (admission.go); nil without
	admErr error           // the first error of the admission stage
}

// realState is what the simulated VMs of a lease have really done.
type realState struct {
	left    time.Duration // real run time still to go
	since   time.Time     // running since (when running)
	running bool
	gen     uint64
}

func newEngine(cfg Config) (*engine, error) {
	t := slottable.New()
	for i := 0; i < cfg.Cluster.Hosts; i++ {
		if _, err := t.AddHost(fmt.Sprintf("host%03d", i), slottable.Resources{cfg.Cluster.CPU, cfg.Cluster.Memory}); err != nil {
			return nil, err
		}
	}
	s, err := scheduler.New(cfg.Scheduler, t, Epoch, stderrLog{})
	if err != nil {
		return nil, err
	}
	e := &engine{s: s, cfg: cfg, real: map[scheduler.LeaseID]*realState{}}
	s.Record = func(iv scheduler.Interval) { e.gantt.add(iv); e.power.record(iv) }
	if e.power, err = newPowerCtl(e, cfg.Energy); err != nil {
		return nil, err
	}
	if e.adm, err = newAdmissionStage(cfg); err != nil {
		return nil, err
	}
	return e, nil
}

// loop runs until every arrival from reqs[next] on is in and nothing is
// left to happen. It returns early, with ErrStopped, when ctx is done.
func (e *engine) loop(ctx context.Context, reqs []scheduler.Request, next int) error {
	reached := Epoch // the last event's time
	for {
		if e.cfg.Progress != nil && e.events > 0 {
			e.cfg.Progress(e.progress(reached, len(reqs)))
		}
		if ctx.Err() != nil {
			return e.stopped(e.progress(reached, len(reqs)), context.Cause(ctx))
		}
		t, ok := e.nextTime(arrivalOf(reqs, next))
		if !ok {
			return nil
		}
		reached = t
		if err := e.open(t); err != nil {
			return err
		}
		for next < len(reqs) && !Epoch.Add(reqs[next].Arrival).After(t) {
			if err := e.arrive(t, reqs[next]); err != nil {
				return err
			}
			next++
		}
		if err := e.close(t, next < len(reqs)); err != nil {
			return err
		}
	}
}

// open starts the event at t, up to its arrivals: the real ends that are
// due, Scheduler.Advance and the admission cron.
func (e *engine) open(t time.Time) error {
	e.events++
	for len(e.ends) > 0 && !e.ends[0].at.After(t) {
		end := e.ends.Pop()
		if st := e.real[end.lease]; st != nil && st.running && st.gen == end.gen {
			e.handle(e.s.Finished(t, end.lease))
		}
	}
	e.handle(e.s.Advance(t))
	return e.adm.tick(t) // admission.go: the cron's computation
}

// arrive passes one request arriving at t through the admission stage
// (which records a rejection with Scheduler.Refuse) to the scheduler.
func (e *engine) arrive(t time.Time, req scheduler.Request) error {
	ok, err := e.adm.submit(e, t, req) // admission.go
	if err != nil || !ok {
		return err
	}
	e.submit(t, req)
	return nil
}

// submit gives an admitted request to the scheduler (after the energy
// hook) and starts following its real run time.
func (e *engine) submit(t time.Time, req scheduler.Request) {
	e.handle(e.power.beforeSubmit(t, req)) // energy.go
	l, acts := e.s.Submit(t, req)
	e.real[l.ID] = &realState{left: req.RealDuration()}
	e.adm.record(l)
	e.handle(acts)
}

// close ends the event at t, after its arrivals: the energy controller's
// step (more: arrivals are still to come).
func (e *engine) close(t time.Time, more bool) error {
	e.handle(e.power.step(t, func() bool { return !more && e.quiet() })) // energy.go
	return e.admErr
}

// arrivalOf is the arrival time of reqs[next], if there is one.
func arrivalOf(reqs []scheduler.Request, next int) (time.Time, bool) {
	if next < len(reqs) {
		return Epoch.Add(reqs[next].Arrival), true
	}
	return time.Time{}, false
}

// nextTime is the next event's time: the next arrival (has), the
// scheduler's next event, the next real end, the controllers' ticks.
func (e *engine) nextTime(arrival time.Time, has bool) (time.Time, bool) {
	var t time.Time
	ok := false
	consider := func(c time.Time) {
		if !ok || c.Before(t) {
			t, ok = c, true
		}
	}
	if has {
		consider(arrival)
	}
	if at, has := e.s.NextEvent(); has {
		consider(at)
	}
	for len(e.ends) > 0 {
		end := e.ends[0]
		if st := e.real[end.lease]; st != nil && st.running && st.gen == end.gen {
			consider(end.at)
			break
		}
		e.ends.Pop()
	}
	if at, has := e.power.nextAt(ok); has { // energy.go: the controller's tick
		consider(at)
	}
	if at, has := e.adm.nextAt(ok); has { // admission.go: the cron
		consider(at)
	}
	return t, ok
}

// handle plays the actions: VMs that start computing get a real end; VMs
// that stop computing keep what they have left.
func (e *engine) handle(acts []scheduler.Action) {
	for _, a := range acts {
		if a.Op == scheduler.ActDone && e.adm != nil {
			if l := e.s.Lease(a.Lease); l.State == scheduler.Done {
				if err := e.adm.done(l, a.At, e.cfg.Cluster.Hosts); err != nil && e.admErr == nil {
					e.admErr = err
				}
			}
		}
		st := e.real[a.Lease]
		if st == nil {
			continue
		}
		switch a.Op {
		case scheduler.ActRun:
			st.running, st.since = true, a.At
			st.gen++
			e.ends.Push(realEnd{at: a.At.Add(st.left), lease: a.Lease, gen: st.gen})
		case scheduler.ActSuspend, scheduler.ActStop, scheduler.ActShutdown, scheduler.ActDone:
			if st.running {
				st.left -= a.At.Sub(st.since)
				st.running = false
				st.gen++
			}
			if a.Op == scheduler.ActStop {
				// Stopped VMs lose their work: a requeued lease starts from scratch.
				st.left = e.s.Lease(a.Lease).Req.RealDuration()
			}
		}
	}
}

type realEnd struct {
	at    time.Time
	lease scheduler.LeaseID
	gen   uint64
}

// Before orders real ends by time, then lease ID.
func (a realEnd) Before(b realEnd) bool {
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	return a.lease < b.lease
}

// stderrLog writes the errors the scheduler recovers from to standard
// error, as a run's only diagnostics (they never change its report);
// debug details are dropped.
type stderrLog struct{}

func (stderrLog) LeaseError(id scheduler.LeaseID, what string, err error) {
	fmt.Fprintf(os.Stderr, "scheduler: %s: lease %d: %v\n", what, id, err)
}

func (stderrLog) Debug(string, map[string]any) {}

// prepare checks cfg, builds its engine and sorts reqs by arrival
// (stably, in a copy): the start of Run and of a Stepper.
func prepare(cfg Config, reqs []scheduler.Request) (*engine, []scheduler.Request, error) {
	if err := cfg.Cluster.Validate(); err != nil {
		return nil, nil, err
	}
	if err := cfg.Energy.Validate(); err != nil {
		return nil, nil, err
	}
	e, err := newEngine(cfg)
	if err != nil {
		return nil, nil, err
	}
	sorted := append([]scheduler.Request(nil), reqs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Arrival < sorted[j].Arrival })
	return e, sorted, nil
}
