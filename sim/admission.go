package sim

import (
	"time"

	"github.com/bora-sched/bora/admission"
	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
)

// admissionStage is the admission of external leases (docs/models.md §4,
// package admission) as the daemon runs it: every arrival and every end
// feeds the estimator, the limit is computed again at the cron's times
// (events of the loop) and whenever the window has moved by its share,
// and each external request is decided before the energy hook and
// Scheduler.Submit.
type admissionStage struct {
	ctl      *admission.Controller
	cpu      float64                       // the cluster's cpu, for a lease's share
	admitted admission.Admitted            // admitted external leases, perhaps finished
	d        map[scheduler.LeaseID]float64 // D at each admission (0: not known yet)
}

func newAdmissionStage(cfg Config) (*admissionStage, error) {
	if cfg.Admission == nil {
		return nil, nil
	}
	ctl, err := admission.NewController(*cfg.Admission, Epoch)
	if err != nil {
		return nil, err
	}
	if err := ctl.Recompute(Epoch); err != nil { // the cron counts from here
		return nil, err
	}
	return &admissionStage{ctl: ctl, cpu: float64(cfg.Cluster.CPU) * float64(cfg.Cluster.Hosts), d: map[scheduler.LeaseID]float64{}}, nil
}

// nextAt is the cron's next computation, an event of the loop while
// something else is left to happen (busy).
func (a *admissionStage) nextAt(busy bool) (time.Time, bool) {
	if a == nil || !busy {
		return time.Time{}, false
	}
	return a.ctl.NextCron()
}

// tick computes the limit again when it is due.
func (a *admissionStage) tick(now time.Time) error {
	if a == nil {
		return nil
	}
	_, err := a.ctl.Tick(now)
	return err
}

// submit passes a request through the stage: it observes the arrival and,
// for an external request, decides. A rejected request becomes a lease
// rejected with scheduler.ReasonAdmissionLimit; admitted ones (and local
// ones) go on to the scheduler (ok).
func (a *admissionStage) submit(e *engine, now time.Time, req scheduler.Request) (ok bool, err error) {
	d, err := a.decide(e, now, req)
	if err != nil || d.Admit {
		return d.Admit, err
	}
	e.s.Refuse(now, req, d.Reason, d.Detail)
	return false, nil
}

// decide observes the arrival and decides on an external request,
// without recording a rejection: Admit is set for the requests that go
// on (local ones, all of them without a stage).
func (a *admissionStage) decide(e *engine, now time.Time, req scheduler.Request) (admission.Decision, error) {
	if a == nil {
		return admission.Decision{Admit: true}, nil
	}
	finished := func(id scheduler.LeaseID) bool { return e.s.Lease(id).State.Terminal() }
	d, decided, err := a.ctl.Arrive(now, req, &a.admitted, finished)
	if err != nil {
		return admission.Decision{}, err
	}
	if !decided {
		d.Admit = true
	}
	return d, nil
}

// record records an external lease the stage let through.
func (a *admissionStage) record(l *scheduler.Lease) {
	if a == nil || l.Req.Origin != scheduler.External {
		return
	}
	a.admitted.Add(l.ID)
	a.d[l.ID] = a.ctl.Current().Threshold
}

// done observes the end of a lease that ran its full time: its run time
// and its share of the cluster's cpu (VMs × cpu over the cluster's; VMs
// over hosts for a request of no cpu).
func (a *admissionStage) done(l *scheduler.Lease, at time.Time, hosts int) error {
	if a == nil {
		return nil
	}
	return a.ctl.Observe(admission.EndOf(l, at, a.cpu, hosts))
}

// metrics adds the admission metrics (docs/models.md §4) to m:
// VR = (a*v + r)/(a + r) × 100 over the external leases, a accepted
// (not rejected, whatever the reason), r rejected, v the share of the
// accepted that waited (first start - submission) longer than D; D is
// the threshold in force when each was admitted (the first one known
// for those admitted before it was), and a lease that never started
// waited longer. Rejections of external leases are counted by reason.
func (a *admissionStage) metrics(e *engine, m *report.Metrics) {
	if a == nil {
		return
	}
	var ext, accepted, rejected, late, refused int
	byReason := map[string]int{}
	first := a.ctl.FirstThreshold()
	for _, l := range e.s.Leases() {
		if l.Req.Origin != scheduler.External {
			continue
		}
		ext++
		if l.State == scheduler.Rejected {
			rejected++
			byReason[string(l.Reason)]++
			refused += b2i(l.Reason == scheduler.ReasonAdmissionLimit)
			continue
		}
		accepted++
		d := a.d[l.ID]
		if d == 0 {
			d = first
		}
		if l.FirstStart.IsZero() || d > 0 && l.FirstStart.Sub(l.Submitted).Seconds() > d {
			late++
		}
	}
	vr, rr := admission.ViolationRate(accepted, rejected, late), pct(refused, ext)
	m.AdmissionViolationRate, m.AdmissionRejectionRate = &vr, &rr
	m.ExternalRejections = byReason
	st := a.ctl.Current()
	m.AdmissionThresholdS = &st.Threshold
}
