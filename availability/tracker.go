package availability

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// Tracker follows hosts' up/down states and uses, and keeps each host's
// estimate (the Host records). It is fed in time order by the daemon: the
// driver's host states (SetUp) and whether any lease is on a host
// (SetUsed). Times that go backwards are taken as the last time seen. Not
// safe for concurrent use.
type Tracker struct {
	p     Params
	hosts map[string]*Host
}

// Host is one host's record: the estimate and the period in progress.
// Its fields are exported so a daemon can store and restore them (JSON).
type Host struct {
	// A is the estimate; 1 before the first period ends.
	A float64 `json:"a"`
	// Periods is how many periods of use have ended.
	Periods int `json:"periods"`
	// Down is whether the host is down now.
	Down bool `json:"down,omitempty"`
	// Used is whether a period of use is in progress, since Start.
	Used  bool      `json:"used,omitempty"`
	Start time.Time `json:"start,omitzero"`
	// Active and Lost are the time up and down so far in the period, up
	// to Seen.
	Active time.Duration `json:"active_ns,omitempty"`
	Lost   time.Duration `json:"lost_ns,omitempty"`
	// Seen is the last time the record was brought up to date.
	Seen time.Time `json:"seen,omitzero"`
	// LastEnd is when the previous period ended (zero: none yet).
	LastEnd time.Time `json:"last_end,omitzero"`
}

// NewTracker returns a tracker with no hosts; a host is added by its
// first event and starts up, unused, with A = 1. The error wraps
// ErrInvalid.
func NewTracker(p Params) (*Tracker, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Tracker{p: p, hosts: map[string]*Host{}}, nil
}

// host is name's record, made on first use.
func (t *Tracker) host(name string, now time.Time) *Host {
	h := t.hosts[name]
	if h == nil {
		h = &Host{A: 1, Seen: now}
		t.hosts[name] = h
	}
	return h
}

// advance counts the time since h.Seen towards the period in progress.
func (h *Host) advance(now time.Time) {
	if !now.After(h.Seen) {
		return
	}
	if h.Used {
		if h.Down {
			h.Lost += now.Sub(h.Seen)
		} else {
			h.Active += now.Sub(h.Seen)
		}
	}
	h.Seen = now
}

// SetUp records that host is up (or down) from now on.
func (t *Tracker) SetUp(host string, now time.Time, up bool) {
	h := t.host(host, now)
	h.advance(now)
	h.Down = !up
}

// SetUsed records that some lease is on host from now on (used), or that
// none is any more; the end of a use closes a period and updates the
// estimate.
func (t *Tracker) SetUsed(host string, now time.Time, used bool) {
	h := t.host(host, now)
	h.advance(now)
	switch {
	case used && !h.Used:
		h.Used, h.Start, h.Active, h.Lost = true, h.Seen, 0, 0
	case !used && h.Used:
		var idle time.Duration
		if !h.LastEnd.IsZero() {
			idle = h.Start.Sub(h.LastEnd)
		}
		if h.Active+h.Lost > 0 {
			h.A = t.p.Update(h.A, idle, h.Active, h.Lost)
			h.Periods++
			h.LastEnd = h.Seen
		}
		h.Used, h.Start, h.Active, h.Lost = false, time.Time{}, 0, 0
	}
}

// Estimate is host's estimate (1 for a host never seen).
func (t *Tracker) Estimate(host string) float64 {
	if h := t.hosts[host]; h != nil {
		return h.A
	}
	return 1
}

// Joint is the probability that all of hosts stay up: the product of
// their estimates.
func (t *Tracker) Joint(hosts []string) float64 {
	est := make([]float64, len(hosts))
	for i, h := range hosts {
		est[i] = t.Estimate(h)
	}
	return Joint(est)
}

// Records are copies of every host's record, for storing.
func (t *Tracker) Records() map[string]Host {
	out := make(map[string]Host, len(t.hosts))
	for name, h := range t.hosts {
		out[name] = *h
	}
	return out
}

// Record is a copy of host's record; false for a host never seen.
func (t *Tracker) Record(host string) (Host, bool) {
	if h := t.hosts[host]; h != nil {
		return *h, true
	}
	return Host{}, false
}

// Hosts are the names of the hosts seen, sorted.
func (t *Tracker) Hosts() []string { return slices.Sorted(maps.Keys(t.hosts)) }

// Restore replaces every record by saved ones (from Records). A record
// with an estimate outside [0, 1] is refused, naming its host, and the
// tracker is left as it was.
func (t *Tracker) Restore(saved map[string]Host) error {
	for _, name := range slices.Sorted(maps.Keys(saved)) {
		if a := saved[name].A; !(a >= 0 && a <= 1) {
			return fmt.Errorf("host %s: estimate %v is not in [0, 1]", name, a)
		}
	}
	hosts := make(map[string]*Host, len(saved))
	for name, h := range saved {
		h := h
		hosts[name] = &h
	}
	t.hosts = hosts
	return nil
}
