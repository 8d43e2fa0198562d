package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/bora-sched/bora/sim"
)

// Progress of bora simulate on a terminal: one line on stderr, rewritten
// in place, so that standard output (-o json) stays clean.
const (
	progressAfter = 3 * time.Second        // runs shorter than this show nothing
	progressEvery = 250 * time.Millisecond // at most four updates a second
)

// progressLine shows how far the runs of a sweep have got: the simulated
// time the slowest run has reached, the leases done of all runs, and an
// estimate of the time left (from the share of leases done so far).
type progressLine struct {
	w       io.Writer
	now     func() time.Time
	start   time.Time
	mu      sync.Mutex
	last    time.Time // the last update written
	runs    []runProgress
	written bool
}

type runProgress struct {
	at          time.Duration
	done, total int
}

func newProgressLine(w io.Writer, runs int, now func() time.Time) *progressLine {
	return &progressLine{w: w, now: now, start: now(), runs: make([]runProgress, runs)}
}

// hook is run i's sim.Config.Progress. It costs a clock reading an event,
// and counts the leases done only when the line is due.
func (p *progressLine) hook(i int) func(sim.Progress) {
	var next time.Time // only this run's goroutine reads it
	return func(sp sim.Progress) {
		t := p.now()
		if t.Before(next) {
			return
		}
		next = t.Add(progressEvery)
		done := sp.Done()
		p.mu.Lock()
		defer p.mu.Unlock()
		p.runs[i] = runProgress{at: sp.Now, done: done, total: sp.Total}
		if t.Sub(p.start) < progressAfter || t.Sub(p.last) < progressEvery {
			return
		}
		p.last, p.written = t, true
		fmt.Fprint(p.w, "\r\x1b[K"+p.format(t))
	}
}

// format is the line at wall time t: "simulated 12d 04h10m · 1234 of
// 5678 leases done · about 2m10s left".
func (p *progressLine) format(t time.Time) string {
	slowest, done, total := time.Duration(-1), 0, 0
	for _, r := range p.runs {
		if slowest < 0 || r.at < slowest {
			slowest = r.at
		}
		done, total = done+r.done, total+r.total
	}
	parts := []string{"simulated " + sim.FormatSimTime(slowest), fmt.Sprintf("%d of %d leases done", done, total)}
	if done > 0 && total > done {
		elapsed := t.Sub(p.start)
		left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
		parts = append(parts, "about "+left.Round(time.Second).String()+" left")
	}
	return strings.Join(parts, " · ")
}

// clear removes the line, if one was written.
func (p *progressLine) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.written {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.written = false
	}
}

// isTerminal says whether w is a terminal (progress is shown only there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && fileIsTerminal(f)
}
