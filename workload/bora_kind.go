package workload

import (
	"github.com/bora-sched/bora/scheduler"
)

// The words start takes besides a time.
const (
	startBestEffort = "best-effort"
	startNow        = "now"
)

// kind sets req.Kind and req.Start from the kind and start fields (see
// readBora).
func (rd *boraReader) kind(req *scheduler.Request) error {
	kind, kp, hasKind := rd.get("kind")
	start, sp, hasStart := rd.get("start")
	if hasStart && start != startBestEffort && start != startNow {
		d, err := parseTime(start, rd.epoch, true)
		if err == nil && d < 0 {
			err = valuef("%q is negative", start)
		}
		if err != nil {
			return sp.bad("%v", err)
		}
		req.Start = d
	}
	timed := hasStart && start != startBestEffort && start != startNow
	if !hasKind {
		switch {
		case hasStart && start == startNow:
			req.Kind = scheduler.Immediate
		case req.Deadline > 0:
			req.Kind = scheduler.Deadline
		case timed:
			req.Kind = scheduler.AdvanceReservation
		default:
			req.Kind = scheduler.BestEffort
		}
		return nil
	}
	req.Kind = scheduler.Kind(kind)
	switch req.Kind {
	case scheduler.AdvanceReservation:
		if !timed {
			return sp.orAt(kp, rd.p, "start").bad("an advance reservation needs a start time")
		}
	case scheduler.Immediate:
		if timed || start == startBestEffort {
			return sp.bad("an immediate lease starts now, not at %q", start)
		}
	case scheduler.BestEffort:
		if start == startNow {
			return sp.bad("a best-effort lease cannot start now (use kind immediate)")
		}
	case scheduler.Deadline:
		if start == startNow || start == startBestEffort {
			return sp.bad("a deadline lease takes an earliest start time, not %q", start)
		}
	default:
		return kp.bad("unknown kind %q (want advance-reservation, immediate, best-effort or deadline)", kind)
	}
	return nil
}

// orAt is p when it is set, else a position for field f of the lease at
// lease (on the line of fallback).
func (p pos) orAt(fallback, lease pos, f string) pos {
	if p.file != "" {
		return p
	}
	return pos{file: lease.file, line: fallback.line, field: lease.field + "." + f}
}
