package admission

import (
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// How a cluster feeds its controller, the same for the simulator and the
// daemon (docs/models.md §4): Arrive at each submission, EndOf for each
// lease done, and Admitted for the count Decide takes.

// ArrivalOf is the observation of request req submitted at at: an
// external or a local arrival by its origin.
func ArrivalOf(req scheduler.Request, at time.Time) Observation {
	if req.Origin == scheduler.External {
		return Observation{Kind: ExternalArrival, At: at}
	}
	return Observation{Kind: LocalArrival, At: at}
}

// EndOf is the observation of lease l done at at, in a cluster of cpu
// (hundredths of a core, over its hosts) and hosts hosts: its run time
// (the request's real duration) and its share of the cluster, VMs × cpu
// over the cluster's (VMs over hosts for a request of no cpu), at most 1.
func EndOf(l *scheduler.Lease, at time.Time, cpu float64, hosts int) Observation {
	share := float64(l.Req.VMs) * float64(l.Req.CPU) / cpu
	if l.Req.CPU <= 0 {
		share = float64(l.Req.VMs) / float64(hosts)
	}
	kind := LocalEnd
	if l.Req.Origin == scheduler.External {
		kind = ExternalEnd
	}
	return Observation{Kind: kind, At: at, RunS: l.Req.RealDuration().Seconds(), Share: min(share, 1)}
}

// Admitted is the external leases a stage admitted, as long as they may
// not be finished: the count Decide takes. The zero value is empty.
type Admitted struct {
	ids []scheduler.LeaseID
}

// Add records admitted lease id.
func (a *Admitted) Add(id scheduler.LeaseID) { a.ids = append(a.ids, id) }

// Live forgets the leases finished says are finished (done, cancelled,
// failed, rejected by the scheduler later, or unknown) and returns how
// many are left.
func (a *Admitted) Live(finished func(scheduler.LeaseID) bool) int {
	live := a.ids[:0]
	for _, id := range a.ids {
		if !finished(id) {
			live = append(live, id)
		}
	}
	a.ids = live
	return len(live)
}

// Arrive passes request req, submitted at now, through the stage: it
// observes the arrival and, for an external request, computes the limit
// again when it is due (Tick) and decides with the admitted leases not
// yet finished. decided is false for a local request (always admitted).
// The caller records an admitted external lease with Admitted.Add once
// the scheduler has it. An error of Observe comes with no decision; an
// error of Tick (the limit stays as it was) with the decision made under
// the limit as it was.
func (c *Controller) Arrive(now time.Time, req scheduler.Request, admitted *Admitted, finished func(scheduler.LeaseID) bool) (d Decision, decided bool, err error) {
	if err := c.Observe(ArrivalOf(req, now)); err != nil {
		return Decision{}, false, err
	}
	if req.Origin != scheduler.External {
		return Decision{}, false, nil
	}
	_, err = c.Tick(now)
	return c.Decide(now, admitted.Live(finished)), true, err
}

// Held is the number of observations the estimator holds now (those in
// the window at its last estimate and the ones since) and when its
// history began: what a restarted daemon shows it kept.
func (c *Controller) Held() (int, time.Time) {
	return len(c.est.obs) - c.est.head, c.est.since
}

// ViolationRate is VR = (a·v + r)/(a + r) × 100 of docs/models.md §4,
// for accepted external leases of which late waited longer than D
// (v = late/accepted) and rejected ones; 0 when there are none.
func ViolationRate(accepted, rejected, late int) float64 {
	if accepted+rejected == 0 {
		return 0
	}
	v := 0.0
	if accepted > 0 {
		v = float64(late) / float64(accepted)
	}
	return (float64(accepted)*v + float64(rejected)) / float64(accepted+rejected) * 100
}
