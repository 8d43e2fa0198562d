package daemon

import (
	"context"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/scheduler"
)

// DryRunLease answers POST /v1/leases?dry_run=true: what the submission
// path (submit.go) would do with r now, without doing it. The request is
// validated as for CreateLease; the admission policy is not asked (its
// answer counts the leases it admits: asking changes it), the
// availability check is (availability.go); the scheduler's decision is
// its dry run (scheduler.DryRun), exactly what Submit would decide. The
// pass commits nothing.
func (d *Daemon) DryRunLease(ctx context.Context, c api.Caller, r api.LeaseRequest) (api.LeasePlan, error) {
	v, err := d.call(ctx, func(t *tx) (any, error) {
		req, err := toRequest(r, t.now, c)
		if err != nil {
			return nil, err
		}
		if err := d.checkImage(req.Image); err != nil {
			return nil, err
		}
		plan := d.sched.DryRun(t.now, req)
		p := api.LeasePlan{State: string(plan.State), Reason: string(plan.Reason), Detail: plan.Detail,
			Start: plan.Start, End: plan.End, Hosts: d.hostNames(plan)}
		if plan.State != scheduler.Rejected {
			if ok, reason, detail := d.checkAvailability(t.now, req); !ok {
				p = api.LeasePlan{State: string(scheduler.Rejected), Reason: string(reason), Detail: detail}
			}
		}
		return p, nil
	})
	if err != nil {
		return api.LeasePlan{}, err
	}
	return v.(api.LeasePlan), nil
}
