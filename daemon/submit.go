package daemon

import (
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/scheduler"
)

// The one submission path (docs/ARCHITECTURE.md, "Submission"): every
// lease request, from the API, the OpenNebula intake or the emulated
// workload, goes through submit, in the loop: validation, admission
// (external leases only), the energy hook, the scheduler. What it
// decided is committed with the pass, then enacted; calls to outside
// systems (OpenNebula's annotations) are made after the commit too
// (sourcecalls.go), never in the loop.

// admitter is the admission stage: it decides whether an external lease
// request may reach the scheduler at all. A refusal gives a reason (a
// stable value, shown by `bora lease show`) and a detail. A nil admitter
// admits every request.
type admitter interface {
	admit(now time.Time, req scheduler.Request) (ok bool, reason scheduler.Reason, detail string)
}

// submission is a lease request arriving by one of the paths.
type submission struct {
	// form is the request as a user wrote it (API, intake): validated
	// and turned into req by toRequest, as caller. Nil: req is given
	// (the emulation's workload, already a scheduler request).
	form   *api.LeaseRequest
	caller api.Caller
	req    scheduler.Request
	via    string // the path, for the log: "api", "intake", "emulation"
}

// submit runs one request through the submission path in pass t and
// returns the lease made of it: accepted, or rejected with its reason
// (by admission or by the scheduler), and recorded either way. An error
// is a request that does not validate (no lease is made of it); it
// names the field. Every action decided on the way goes to t.acts,
// those returned with a rejection too: Submit first runs whatever is due
// at now and returns it with the lease, whatever became of the lease.
func (d *Daemon) submit(t *tx, s submission) (*scheduler.Lease, error) {
	req := s.req
	if s.form != nil {
		var err error
		if req, err = toRequest(*s.form, t.now, s.caller); err != nil {
			return nil, err
		}
		if err := d.checkImage(req.Image); err != nil {
			return nil, err
		}
	}
	var l *scheduler.Lease
	ok, reason, detail := d.admit(t, req)
	if ok { // availability.go: after the policy, when admission.availability is on
		ok, reason, detail = d.checkAvailability(t.now, req)
	}
	if !ok {
		l = d.sched.Refuse(t.now, req, reason, detail)
	} else {
		t.acts = append(t.acts, d.power.beforeSubmit(t.now, req)...) // energyhooks.go: hosts for the lease
		var acts []scheduler.Action
		l, acts = d.sched.Submit(t.now, req)
		t.acts = append(t.acts, acts...)
		d.adm.record(l) // admission.go: counted until it finishes
	}
	if l.State == scheduler.Rejected && req.Origin == scheduler.External {
		d.m.rejections.WithLabelValues(string(l.Reason)).Inc() // metrics.go
	}
	t.touched = append(t.touched, l.ID)
	t.mutated = true
	log := d.log.WithField("lease_id", l.ID).WithField("user", req.User).WithField("via", s.via).
		WithField("state", string(l.State))
	if l.State == scheduler.Rejected {
		log = log.WithField("reason", string(l.Reason)).WithField("detail", l.Detail)
	}
	log.Info("lease submitted")
	return l, nil
}

// admit asks the admission stage about an external request; local ones
// (and every one without an admitter) are admitted. The stage observes
// the leases done so far in the pass and every arrival (admission.go).
func (d *Daemon) admit(t *tx, req scheduler.Request) (bool, scheduler.Reason, string) {
	d.adm.ends(t)
	if d.admission == nil || req.Origin != scheduler.External {
		d.adm.local(t.now, req)
		return true, "", ""
	}
	return d.admission.admit(t.now, req)
}
