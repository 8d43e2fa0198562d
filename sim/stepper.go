package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
)

// Stepper is one cluster's simulation stepped from outside: a gateway
// (package federation) moves it to each external arrival with AdvanceTo,
// asks it with DryRun, hands it the request with Submit, and ends it with
// Finish. Between those calls it runs the same loop as Run: a cluster
// whose external requests are all handed in at their arrival times
// (after its local requests of the same time) reports what Run reports
// for its local and external requests merged, except that every
// AdvanceTo is an event of its loop (a scheduler Advance, an energy step)
// even when the cluster receives nothing then, and that it counts as busy
// (the admission cron and the energy controller keep ticking) as long as
// the gateway may still send it a request.
//
// A Stepper is not safe for concurrent use.
type Stepper struct {
	e       *engine
	cfg     Config
	local   []scheduler.Request // sorted by arrival
	next    int                 // the first local request not yet in
	at      time.Time           // the open event's time
	open    bool                // AdvanceTo left the event at `at` open for arrivals
	started time.Time
}

// NewStepper builds a cluster's simulation with its local requests (any
// order: they are sorted by arrival, stably). It fails as Run does on an
// invalid configuration.
func NewStepper(cfg Config, local []scheduler.Request) (*Stepper, error) {
	started := time.Now()
	e, sorted, err := prepare(cfg, local)
	if err != nil {
		return nil, err
	}
	return &Stepper{e: e, cfg: cfg, local: sorted, at: Epoch, started: started}, nil
}

// AdvanceTo runs every event of the cluster before t and opens the event
// at t: the real ends due, Scheduler.Advance, the admission cron and the
// local requests arriving at t are done; DryRun and Submit then decide at
// t. Calling it again with the same t keeps the event open; t before the
// open event's time is an error wrapping ErrStepBack.
func (c *Stepper) AdvanceTo(t time.Time) error {
	if t.Before(c.at) {
		return fmt.Errorf("advance to %s, at %s already: %w", t.Sub(Epoch), c.at.Sub(Epoch), ErrStepBack)
	}
	if c.open && c.at.Equal(t) {
		return nil
	}
	for {
		if c.open {
			c.open = false
			if err := c.e.close(c.at, true); err != nil {
				return err
			}
		}
		at, has := arrivalOf(c.local, c.next)
		if !has || at.After(t) {
			at = t // the gateway's arrival is the next one
		}
		nt, _ := c.e.nextTime(at, true)
		if err := c.e.open(nt); err != nil {
			return err
		}
		for c.next < len(c.local) && !Epoch.Add(c.local[c.next].Arrival).After(nt) {
			if err := c.e.arrive(nt, c.local[c.next]); err != nil {
				return err
			}
			c.next++
		}
		c.at, c.open = nt, true
		if nt.Equal(t) {
			return nil
		}
	}
}

// DryRun is the scheduler's answer for req at the open event's time
// (Scheduler.DryRun: planned on a copy, nothing committed). The admission
// stage is not asked.
func (c *Stepper) DryRun(req scheduler.Request) scheduler.DryRun {
	return c.e.s.DryRun(c.at, req)
}

// Refusal is a cluster's admission stage saying no to a request: the
// reason (scheduler.ReasonAdmissionLimit) and the detail.
type Refusal struct {
	Reason scheduler.Reason
	Detail string
}

// Submit hands req, arriving at the open event's time, to the cluster:
// its admission stage decides first (observing the arrival), and a
// request it refuses is returned as a Refusal and not recorded as a
// lease here (the gateway may send it elsewhere); otherwise the
// scheduler takes it, and may still reject it (the lease's state and
// reason say so in the report). Call AdvanceTo first.
func (c *Stepper) Submit(req scheduler.Request) (*Refusal, error) {
	if !c.open {
		return nil, fmt.Errorf("submit %q: %w", req.Name, ErrNotOpen)
	}
	d, err := c.e.adm.decide(c.e, c.at, req)
	if err != nil {
		return nil, err
	}
	if !d.Admit {
		return &Refusal{Reason: d.Reason, Detail: d.Detail}, nil
	}
	c.e.submit(c.at, req)
	return nil, nil
}

// Finish runs the cluster to its end (the gateway sends nothing more)
// and returns its report, as Run does; ctx stops it as in RunContext.
func (c *Stepper) Finish(ctx context.Context) (*report.Report, error) {
	if c.open {
		c.open = false
		if err := c.e.close(c.at, c.next < len(c.local)); err != nil {
			return nil, err
		}
	}
	if err := c.e.loop(ctx, c.local, c.next); err != nil {
		return nil, err
	}
	return c.e.finish(c.cfg, c.started)
}
