package scheduler

import (
	"fmt"
	"time"
)

// Forget drops the leases that reached a terminal state before cutoff,
// and returns their ids: a long-running daemon keeps its history bounded.
// Live leases are never forgotten.
func (s *Scheduler) Forget(cutoff time.Time) []LeaseID {
	var gone []LeaseID
	kept := s.ids[:0]
	for _, id := range s.ids {
		l := s.leases.get(id)
		if l.State.Terminal() && !l.End.IsZero() && l.End.Before(cutoff) && len(l.plan) == 0 {
			gone = append(gone, id)
			s.leases.del(id)
			continue
		}
		kept = append(kept, id)
	}
	s.ids = kept
	if len(gone) > 0 {
		s.log.Debug(fmt.Sprintf("forgot leases that ended before %s", cutoff.Format(time.RFC3339)), map[string]any{"leases": len(gone)})
	}
	return gone
}

// Release drops the given leases that are over (terminal, with nothing
// left planned) and returns how many it dropped; the others stay. A daemon
// that keeps finished leases in its store calls it once their last form
// is saved, so that its memory holds only the leases still alive. The
// simulator never calls it.
func (s *Scheduler) Release(ids []LeaseID) int {
	drop := map[LeaseID]bool{}
	for _, id := range ids {
		if l := s.leases.get(id); l != nil && l.State.Terminal() && len(l.plan) == 0 {
			drop[id] = true
			s.leases.del(id)
		}
	}
	if len(drop) == 0 {
		return 0
	}
	kept := s.ids[:0]
	for _, id := range s.ids {
		if !drop[id] {
			kept = append(kept, id)
		}
	}
	clear(s.ids[len(kept):])
	s.ids = kept
	return len(drop)
}
