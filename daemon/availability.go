package daemon

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/bora-sched/bora/availability"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
	"github.com/bora-sched/bora/store"
)

// Availability-aware admission (docs/models.md §4, "Availability"): the
// daemon keeps every host's availability estimate, fed after each pass
// from the hosts' up/down states (the driver's, as the daemon holds them)
// and from their use (a host is used while a lease has VMs on it), and
// stores it with the pass. With admission.availability.threshold above 0,
// an external lease the admission policy admitted is planned in a dry run
// (scheduler.DryRun) and refused, with reason availability, when the
// probability that all of its planned hosts stay up is below the
// threshold.

// metaAvailability is the store's meta key of the hosts' availability
// records (map[string]availability.Host).
const metaAvailability = "availability"

// hostAvailability is the tracker and what it was last told.
type hostAvailability struct {
	tr        *availability.Tracker
	threshold float64         // 0: no check
	up, used  map[string]bool // by host name, as last fed
	dirty     bool            // changed since the last commit
	now       []bool          // by host ID: in use (trackAvailability's, kept to save allocations)
}

// loadAvailability builds the tracker from the store. A damaged record
// is logged and replaced by a fresh tracker: the estimates start again
// from 1, which never stops the daemon.
func (d *Daemon) loadAvailability(saved *store.State) {
	c := d.cfg.Admission.Availability
	tr, err := availability.NewTracker(c.Params())
	if err != nil { // the config was validated: not reached
		tr, _ = availability.NewTracker(availability.Defaults())
	}
	a := &hostAvailability{tr: tr, threshold: c.Threshold, up: map[string]bool{}, used: map[string]bool{}}
	d.avail = a
	var recs map[string]availability.Host
	err = getMeta(saved, metaAvailability, &recs)
	if err == nil {
		err = tr.Restore(recs)
	}
	if err != nil {
		d.log.WithError(err).Warn("the hosts' availability records are damaged: starting them afresh")
		a.dirty = true
		return
	}
	for name, h := range recs {
		a.up[name], a.used[name] = !h.Down, h.Used
	}
}

// trackAvailability tells the tracker, at now, what changed in the hosts'
// states and uses. A period of use that a host's failure interrupts (its
// leases fail with it) lasts until the host is up again: the outage is
// the period's down time, as the source's T_down is meant to be.
func (d *Daemon) trackAvailability(t *tx) {
	a := d.avail
	if a == nil {
		return
	}
	for _, h := range d.hosts {
		if h.Retired {
			continue
		}
		if up, ok := a.up[h.Name]; !ok || up != h.Up {
			a.tr.SetUp(h.Name, t.now, h.Up)
			a.up[h.Name], a.dirty = h.Up, true
		}
	}
	if cap(a.now) < len(d.hosts) {
		a.now = make([]bool, len(d.hosts))
	}
	used := a.now[:len(d.hosts)]
	clear(used)
	d.sched.HostsInUse(func(hosts []slottable.HostID) {
		for _, id := range hosts {
			if int(id) < len(used) {
				used[id] = true
			}
		}
	})
	for i, h := range d.hosts {
		u := used[i]
		if h.Retired || u == a.used[h.Name] || (!u && !h.Up) {
			continue
		}
		a.tr.SetUsed(h.Name, t.now, u)
		a.used[h.Name], a.dirty = u, true
	}
}

// availabilityRecord is the meta record to commit, if it changed.
func (d *Daemon) availabilityRecord() ([]byte, bool) {
	if d.avail == nil || !d.avail.dirty {
		return nil, false
	}
	data, err := json.Marshal(d.avail.tr.Records())
	return data, err == nil
}

// checkAvailability is the availability-aware check of an external
// request the admission policy admitted, at now: where would it run, and
// do its hosts stay up with at least the threshold's probability? A
// request the scheduler would not plan (rejected, or queued without a
// plan) passes: the scheduler says its own no.
func (d *Daemon) checkAvailability(now time.Time, req scheduler.Request) (bool, scheduler.Reason, string) {
	a := d.avail
	if a == nil || a.threshold <= 0 || req.Origin != scheduler.External {
		return true, "", ""
	}
	return a.check(d.sched.DryRun(now, req), d.hostNames)
}

// check applies the threshold to a dry run's plan.
func (a *hostAvailability) check(plan scheduler.DryRun, names func(scheduler.DryRun) []string) (bool, scheduler.Reason, string) {
	if !plan.Planned() {
		return true, "", ""
	}
	hosts := names(plan)
	p := a.tr.Joint(hosts)
	if p >= a.threshold {
		return true, "", ""
	}
	return false, scheduler.ReasonAvailability, fmt.Sprintf("hosts %s stay up with probability %.2f, threshold %.2f",
		strings.Join(hosts, ", "), p, a.threshold)
}

// hostNames are the names of a dry run's hosts.
func (d *Daemon) hostNames(plan scheduler.DryRun) []string {
	var out []string
	for _, id := range plan.Hosts {
		out = append(out, d.hosts[id].Name)
	}
	return out
}

// hostAvailabilityView is a host's estimate and its number of ended
// periods of use.
func (d *Daemon) hostAvailabilityView(name string) (float64, int) {
	if d.avail == nil {
		return 1, 0
	}
	r, ok := d.avail.tr.Record(name)
	if !ok {
		return 1, 0
	}
	return r.A, r.Periods
}
