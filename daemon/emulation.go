package daemon

import (
	"fmt"
	"time"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/store"
	"github.com/bora-sched/bora/workload"
)

// emulation submits a workload's requests at their arrival times after
// the daemon first started (config emulation.workload).
type emulation struct {
	reqs   []scheduler.Request
	origin time.Time // when the workload started, on the daemon's clock
	next   int       // the next request to submit
	user   string
	file   string
}

type emulationMeta struct {
	Origin time.Time `json:"origin"`
	Next   int       `json:"next"`
	File   string    `json:"file"`
}

func newEmulation(d *Daemon, saved *store.State) (*emulation, error) {
	e := &emulation{}
	path := relPath(d.path, d.cfg.Emulation.Workload)
	if path == "" {
		return e, nil
	}
	opts := d.cfg.Workload
	tr, err := workload.ReadFile(path, opts)
	if err != nil {
		return nil, fmt.Errorf("emulation.workload: %w", err)
	}
	e.reqs, e.user, e.file = tr.Requests, d.cfg.Emulation.User, path
	if e.user == "" {
		e.user = "emulation"
	}
	var m emulationMeta
	if err := getMeta(saved, metaEmulation, &m); err != nil {
		return nil, err
	}
	if m.File == path && !m.Origin.IsZero() {
		e.origin, e.next = m.Origin, m.Next // carry on after a restart
	} else {
		e.origin = d.clk.Now()
	}
	d.log.WithField("requests", len(e.reqs)).WithField("file", path).Info("emulation workload loaded")
	return e, nil
}

func (e *emulation) meta() emulationMeta {
	if len(e.reqs) == 0 {
		return emulationMeta{}
	}
	return emulationMeta{Origin: e.origin, Next: e.next, File: e.file}
}

// next is when the next request arrives.
func (e *emulation) nextAt() (time.Time, bool) {
	if e.next >= len(e.reqs) {
		return time.Time{}, false
	}
	return e.origin.Add(e.reqs[e.next].Arrival), true
}

// submitDue submits every request whose arrival has come.
func (e *emulation) submitDue(d *Daemon, t *tx) {
	for {
		at, ok := e.nextAt()
		if !ok || at.After(t.now) {
			return
		}
		r := e.reqs[e.next]
		e.next++
		shift := e.origin.Sub(Epoch)
		r.Arrival = t.now.Sub(Epoch)
		if r.Start > 0 {
			r.Start += shift
		}
		if r.Deadline > 0 {
			r.Deadline += shift
		}
		if r.User == "" {
			r.User = e.user
		}
		_, _ = d.submit(t, submission{req: r, via: "emulation"}) // submit.go: no form, no validation error
	}
}
