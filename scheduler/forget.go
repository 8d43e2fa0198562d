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
		l := s.leases[id]
		if l.State.Terminal() && !l.End.IsZero() && l.End.Before(cutoff) && len(l.plan) == 0 {
			gone = append(gone, id)
			delete(s.leases, id)
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
