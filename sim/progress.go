package sim

import (
	"fmt"
	"time"
)

// Progress is how far a run has got, given to Config.Progress after
// every event of the loop.
type Progress struct {
	Now   time.Duration // simulated time reached, from the start of the trace (Epoch)
	Total int           // leases of the trace
	// Done counts the leases that are over (done, rejected, cancelled).
	// It walks every lease: call it only when it is shown, and only from
	// within the Progress callback (the run goes on when it returns).
	Done func() int
}

// progress is the run's Progress at simulated time t.
func (e *engine) progress(t time.Time, total int) Progress {
	return Progress{Now: t.Sub(Epoch), Total: total, Done: e.doneLeases}
}

// doneLeases counts the leases that are over.
func (e *engine) doneLeases() int {
	n := 0
	for id := range e.real {
		if l := e.s.Lease(id); l != nil && l.State.Terminal() {
			n++
		}
	}
	return n
}

// stopped is the error of a run whose context is done at simulated time t.
func (e *engine) stopped(p Progress, cause error) error {
	return fmt.Errorf("%w at simulated time %s: %d of %d leases done: %w",
		ErrStopped, FormatSimTime(p.Now), p.Done(), p.Total, cause)
}

// FormatSimTime writes a simulated time (from the start of the trace) in
// days, hours and minutes: "12d 04h10m", "3h05m", "42s".
func FormatSimTime(d time.Duration) string {
	d = d.Round(time.Second)
	days, rest := d/(24*time.Hour), d%(24*time.Hour)
	h, m, s := rest/time.Hour, rest%time.Hour/time.Minute, rest%time.Minute/time.Second
	switch {
	case days > 0:
		return fmt.Sprintf("%dd %02dh%02dm", days, h, m)
	case h > 0:
		return fmt.Sprintf("%dh%02dm", h, m)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, s)
	}
	return fmt.Sprintf("%ds", s)
}
