package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/admission"
	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/clock"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/store"
)

// The admission stage of external leases in borad (docs/models.md §4,
// package admission), fed as the simulator feeds it (admission.Arrive,
// admission.EndOf): every submission is an arrival (submit.go), every
// lease done an end (the passes' ActDone actions), and each external
// request is decided, after a Tick, with the external leases admitted
// and not finished. The limit is computed again on the schedule
// admission.schedule (robfig/cron's syntax, on the daemon's clock: the
// loop wakes for it) and whenever the window has moved by
// admission.recompute_share, at the first pass due. The controller's
// state is the store's meta record "admission", committed with the pass
// that changed it and restored at start: the estimates go on from there.

// metaAdmission is the store's meta key of the controller's snapshot.
const metaAdmission = "admission" // admission.Snapshot

// admissionStage is the daemon's admitter.
type admissionStage struct {
	d        *Daemon
	ctl      *admission.Controller
	admitted admission.Admitted
	dirty    bool // changed since the last commit
	log      *logrus.Entry
}

// newAdmissionStage builds the stage from the config (nil without a
// policy) and restores the controller from the store. A damaged or
// unusable snapshot is logged and replaced by a fresh controller,
// whose history starts now: the daemon starts either way.
func newAdmissionStage(d *Daemon, saved *store.State) (*admissionStage, error) {
	if !d.cfg.Admission.Modelled() {
		return nil, nil
	}
	cfg, err := d.cfg.Admission.Controller("")
	if err != nil {
		return nil, err
	}
	now := d.clk.Now()
	ctl, err := admission.NewController(cfg, now)
	if err != nil {
		return nil, fmt.Errorf("admission: %w", err)
	}
	a := &admissionStage{d: d, ctl: ctl, log: d.lg.WithField("component", "admission"), dirty: true}
	if data, ok := saved.Meta[metaAdmission]; ok {
		var snap admission.Snapshot
		err := json.Unmarshal(data, &snap)
		if err == nil {
			err = ctl.Restore(snap)
		}
		if err != nil {
			a.log.WithError(err).Warn("the stored admission state is damaged: estimating from scratch, from now")
		} else {
			a.dirty = false
			st := ctl.Current()
			a.log.WithField("policy", string(st.Policy)).WithField("observations", len(snap.Estimator.Observations)).
				WithField("since", snap.Estimator.Since.Format(time.RFC3339)).Info("admission state restored")
		}
	}
	for _, l := range d.sched.Leases() {
		if l.Req.Origin == scheduler.External && !l.State.Terminal() {
			a.admitted.Add(l.ID)
		}
	}
	return a, nil
}

// setupAdmission builds (or, after a panic, rebuilds) the admission
// stage from the config and the store.
func (d *Daemon) setupAdmission(saved *store.State) error {
	a, err := newAdmissionStage(d, saved)
	if err != nil {
		return err
	}
	d.adm = a
	if a != nil {
		d.admission = a
	}
	return nil
}

// finished tells whether lease id no longer counts as admitted.
func (a *admissionStage) finished(id scheduler.LeaseID) bool {
	st, ok := a.d.leaseState(id)
	return !ok || st.Terminal()
}

// admit decides on an external request (the admitter of submit.go).
func (a *admissionStage) admit(now time.Time, req scheduler.Request) (bool, scheduler.Reason, string) {
	d, _, err := a.ctl.Arrive(now, req, &a.admitted, a.finished)
	a.dirty = true
	if err != nil {
		a.log.WithError(err).Warn("admission limit not computed again: the last one holds")
	}
	return d.Admit, d.Reason, d.Detail
}

// local observes the arrival of a local request (admitted).
func (a *admissionStage) local(now time.Time, req scheduler.Request) {
	if a == nil {
		return
	}
	if err := a.ctl.Observe(admission.ArrivalOf(req, now)); err != nil {
		a.log.WithError(err).Warn("arrival not observed")
	}
	a.dirty = true
}

// record counts lease l once the scheduler has it: an admitted external
// lease until it finishes.
func (a *admissionStage) record(l *scheduler.Lease) {
	if a == nil || l.Req.Origin != scheduler.External || l.State.Terminal() {
		return
	}
	a.admitted.Add(l.ID)
}

// ends observes the leases done by the actions of pass t not looked at
// yet (an ActDone of a lease in state done, as the simulator does), over
// the cluster's hosts now.
func (a *admissionStage) ends(t *tx) {
	if a == nil {
		return
	}
	var cpu float64
	hosts := 0
	for i := t.admSeen; i < len(t.acts); i++ {
		act := t.acts[i]
		if act.Op != scheduler.ActDone {
			continue
		}
		l := a.d.sched.Lease(act.Lease)
		if l == nil || l.State != scheduler.Done {
			continue
		}
		if hosts == 0 {
			cpu, hosts = a.d.clusterCPU()
		}
		if err := a.ctl.Observe(admission.EndOf(l, act.At, cpu, max(hosts, 1))); err != nil {
			a.log.WithError(err).WithField("lease_id", l.ID).Warn("end not observed")
			continue
		}
		a.dirty = true
	}
	t.admSeen = len(t.acts)
}

// clusterCPU is the cpu of the hosts in service (hundredths of a core)
// and their number.
func (d *Daemon) clusterCPU() (float64, int) {
	var cpu float64
	n := 0
	for _, h := range d.hosts {
		if !h.Retired {
			cpu += float64(h.CPU)
			n++
		}
	}
	return cpu, n
}

// tick looks at the pass's ends and computes the limit again when due.
func (a *admissionStage) tick(t *tx) {
	if a == nil {
		return
	}
	a.ends(t)
	done, err := a.ctl.Tick(t.now)
	if err != nil {
		a.log.WithError(err).Warn("admission limit not computed again: the last one holds")
	}
	if done || err != nil {
		a.dirty = true
		a.logLimit()
	}
}

// logLimit logs the limit just computed.
func (a *admissionStage) logLimit() {
	st := a.ctl.Current()
	log := a.log.WithField("policy", string(st.Policy)).WithField("warm", st.Warm).WithField("threshold_s", st.Threshold)
	if st.Limit.Unlimited {
		log = log.WithField("limit", "none")
	} else {
		log = log.WithField("limit", st.Limit.K)
	}
	log.Debug("admission limit computed")
}

// nextAt is the cron's next computation: the loop wakes for it (on a
// simulated clock, only while something else is to happen, or time
// would run on forever).
func (a *admissionStage) nextAt(busy bool) (time.Time, bool) {
	if a == nil {
		return time.Time{}, false
	}
	if _, sim := a.d.clk.(clock.Jumper); sim && !busy {
		return time.Time{}, false
	}
	return a.ctl.NextCron()
}

// save puts the snapshot in batch meta when it changed; committed, the
// caller clears dirty.
func (a *admissionStage) save(meta map[string][]byte) error {
	if a == nil || !a.dirty {
		return nil
	}
	data, err := json.Marshal(a.ctl.Snapshot())
	if err != nil {
		return fmt.Errorf("encoding the admission state: %w", err)
	}
	meta[metaAdmission] = data
	return nil
}

// view is the stage's state for the API (its explanation only with
// explain).
func (a *admissionStage) view(explain bool) *api.Admission {
	st := a.ctl.Current()
	e := st.Estimate
	v := &api.Admission{Policy: string(st.Policy), ComputedAt: st.ComputedAt, Warm: st.Warm, Warming: e.Warming,
		SpanS: e.SpanS, Observations: map[string]int{}, Capped: st.Limit.Capped, Saturated: st.Limit.Saturated,
		Admitted: a.admitted.Live(a.finished), ThresholdS: st.Threshold,
		Inputs: api.AdmissionInputs{LocalRate: e.Load.LocalRate, LocalCV: e.Load.LocalCV, ExternalMeanS: e.Load.ExternalMean,
			ExternalRate: e.Load.ExternalRate, ExternalRunS: e.ExternalRunS}}
	v.Held, v.Since = a.ctl.Held()
	if e.Load.LocalServiceRate > 0 {
		v.Inputs.LocalServiceMeanS = 1 / e.Load.LocalServiceRate
	}
	for k, n := range e.Counts {
		v.Observations[string(k)] = n
	}
	if !st.Limit.Unlimited {
		k := st.Limit.K
		v.Limit = &k
	}
	a.d.tally.admissionRates(v) // finished.go
	if explain {
		v.Explain = &api.AdmissionExplain{MaxK: a.ctl.Config().MaxK}
		x, err := a.ctl.Explain()
		if err != nil {
			v.Explain.Error = err.Error()
		} else {
			v.Explain.LocalLoad, v.Explain.ExternalLoad = x.LocalLoad, x.ExternalLoad
			v.Explain.ServiceMeanS, v.Explain.ServiceCV = x.ServiceMean, x.ServiceCV
			v.Explain.ResponseTimesS, v.Explain.KStar = x.ResponseTimes, x.Limit.K
		}
	}
	return v
}

// gauges sets the admission metrics (metrics.go).
func (a *admissionStage) gauges() {
	if a == nil {
		return
	}
	v := a.view(false)
	m := a.d.m
	k := -1.0
	if v.Limit != nil {
		k = float64(*v.Limit)
	}
	m.admLimit.Set(k)
	m.admAdmitted.Set(float64(v.Admitted))
	m.admThreshold.Set(v.ThresholdS)
	in := v.Inputs
	for name, x := range map[string]float64{"local_rate": in.LocalRate, "local_service_mean_seconds": in.LocalServiceMeanS,
		"local_cv": in.LocalCV, "external_mean_seconds": in.ExternalMeanS, "external_rate": in.ExternalRate,
		"external_run_seconds": in.ExternalRunS} {
		m.admInputs.WithLabelValues(name).Set(x)
	}
	m.admVR.Set(v.ViolationRate)
	m.admCompleted.Set(v.CompletedPercent)
}

// admissionRates fills in the admission metrics of docs/models.md §4 over
// the finished external leases: VR = (a*v + r)/(a + r) × 100, a the
// accepted ones (not rejected, whatever the reason), r the rejected, v
// the share of the accepted that waited (first start - submission)
// longer than D (the current one; 0: not known, only those that never
// started count), a lease that never started having waited longer; the
// share of them done; the rejections by reason.
func (t *overTally) admissionRates(v *api.Admission) {
	v.Rejections = map[string]int{}
	r := 0
	for reason, n := range t.rejections {
		v.Rejections[string(reason)] = n
		r += n
	}
	a := t.external - r
	if t.external > 0 {
		v.CompletedPercent = float64(t.externalDone) / float64(t.external) * 100
	}
	late := max(a-len(t.waits), 0) // never started
	for _, w := range t.waits {
		if v.ThresholdS > 0 && w.Wait.Seconds() > v.ThresholdS {
			late++
		}
	}
	v.ViolationRate = admission.ViolationRate(a, r, min(late, a))
}

// Admission is GET /v1/admission: ErrNotFound without a policy.
func (d *Daemon) Admission(ctx context.Context, _ api.Caller) (api.Admission, error) {
	v, err := d.call(ctx, func(*tx) (any, error) {
		if d.adm == nil {
			return nil, fmt.Errorf("no admission stage: admission.policy is not set: %w", api.ErrNotFound)
		}
		return *d.adm.view(true), nil
	})
	if err != nil {
		return api.Admission{}, err
	}
	return v.(api.Admission), nil
}
