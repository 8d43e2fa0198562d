package opennebula

import (
	"context"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

// expectation is what bora last asked of a VM.
type expectation int

const (
	expectNothing expectation = iota // not started, failed, or already reported
	expectRunning                    // started, resumed or migrated
	expectSaved                      // suspended
	expectGone                       // stopped, shut down or cleaned up
)

// watchState is the poller's view of one adopted VM.
type watchState struct {
	expect   expectation
	busy     int  // operations in progress on it: the poller keeps off
	reported bool // an event was sent for its current trouble
}

// expectFromState guesses the expectation of a VM found after a restart.
func expectFromState(v *oneVM) expectation {
	switch {
	case v.State == oca.Active && v.LCM == oca.Running:
		return expectRunning
	case v.State == oca.Suspended:
		return expectSaved
	}
	return expectNothing
}

// watchOf returns (creating) the watch state of VM id; d.mu held.
func (d *Driver) watchOf(id int) *watchState {
	w := d.watch[id]
	if w == nil {
		w = &watchState{}
		d.watch[id] = w
	}
	return w
}

func (d *Driver) setBusy(ts []*target, delta int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, t := range ts {
		d.watchOf(t.id).busy += delta
	}
}

// poll runs until Close: every PollInterval it looks at bora's VMs and
// the hosts and sends the events it finds.
func (d *Driver) poll() {
	defer d.wg.Done()
	t := time.NewTicker(d.cfg.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-d.done:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), d.cfg.PollInterval*4)
		go func() {
			select {
			case <-d.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		d.pollOnce(ctx)
		cancel()
	}
}

// pollOnce looks once; it is also what tests call.
func (d *Driver) pollOnce(ctx context.Context) {
	if err := d.pollVMs(ctx); err != nil && ctx.Err() == nil {
		d.log.WithError(err).Warn("polling vms")
	}
	if err := d.pollHosts(ctx); err != nil && ctx.Err() == nil {
		d.log.WithError(err).Warn("polling hosts")
	}
}

func (d *Driver) pollVMs(ctx context.Context) error {
	vms, err := d.one.vms(ctx, oca.PoolStateNotDone)
	if err != nil {
		return err
	}
	d.learn(vms)
	byID := make(map[int]*oneVM, len(vms))
	for _, v := range vms {
		byID[v.ID] = v
	}
	// Which adopted VMs to look at: not busy, expected to be somewhere.
	d.mu.Lock()
	var ids []int
	for id, w := range d.watch {
		if w.busy == 0 && !w.reported && (w.expect == expectRunning || w.expect == expectSaved) {
			ids = append(ids, id)
		}
	}
	d.mu.Unlock()
	for _, id := range ids {
		v, ok := byID[id]
		if !ok {
			// Not in the pool of live VMs: DONE, or deleted for good.
			info, err := d.one.vmInfo(ctx, id)
			switch {
			case isNoExists(err):
				v = &oneVM{ID: id, State: oca.Done}
			case err != nil:
				return err
			default:
				v = info
			}
		}
		if ev, ok := d.trouble(id, v); ok {
			d.emit(ev)
		}
	}
	return nil
}

// trouble decides whether VM id, in state v, went somewhere bora did not
// send it; it marks it reported.
func (d *Driver) trouble(id int, v *oneVM) (drivers.Event, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	w := d.watch[id]
	ref, adopted := d.refs[id]
	if w == nil || !adopted || w.busy > 0 || w.reported {
		return drivers.Event{}, false
	}
	ev := drivers.Event{Lease: ref.lease, Index: ref.index, Host: v.Host}
	switch {
	case v.State == oca.Done:
		ev.Kind = drivers.VMCrashed
		ev.Detail = fmt.Sprintf("opennebula vm %d was terminated outside bora (DONE)", id)
	case w.expect != expectRunning:
		return drivers.Event{}, false
	case v.State == oca.Poweroff:
		ev.Kind = drivers.VMExited
		ev.Detail = fmt.Sprintf("opennebula vm %d: the guest powered off (POWEROFF)", id)
	case v.State == oca.Active && v.LCM == oca.Unknown:
		ev.Kind = drivers.VMCrashed
		ev.Detail = fmt.Sprintf("opennebula vm %d: its host does not answer (UNKNOWN)", id)
	case v.State == oca.Active && v.LCM.IsFailure():
		ev.Kind = drivers.VMCrashed
		ev.Detail = fmt.Sprintf("opennebula vm %d went to %s: %s", id, v.stateString(), v.Error)
	default:
		return drivers.Event{}, false
	}
	w.reported = true
	w.expect = expectNothing
	return ev, true
}

func (d *Driver) pollHosts(ctx context.Context) error {
	hosts, err := d.refreshHosts(ctx)
	if err != nil {
		return err
	}
	var evs []drivers.Event
	d.mu.Lock()
	for _, h := range hosts {
		was, known := d.hostUp[h.ID]
		down := h.State == oca.HostError || h.State == oca.HostMonitoringError
		up := hostUp(h.State)
		switch {
		case !known:
			d.hostUp[h.ID] = up
		case was && down:
			d.hostUp[h.ID] = false
			evs = append(evs, drivers.Event{Kind: drivers.HostDown, Host: h.Name,
				Detail: fmt.Sprintf("opennebula host %d is %s", h.ID, h.State)})
		case !was && up:
			d.hostUp[h.ID] = true
			evs = append(evs, drivers.Event{Kind: drivers.HostUp, Host: h.Name,
				Detail: fmt.Sprintf("opennebula host %d is %s", h.ID, h.State)})
		case was && !up:
			// Disabled or offline on purpose: no event, but remember.
			d.hostUp[h.ID] = false
		}
	}
	d.mu.Unlock()
	for _, ev := range evs {
		d.emit(ev)
	}
	return nil
}

// emit sends ev unless the driver is closing.
func (d *Driver) emit(ev drivers.Event) {
	d.log.WithFields(logrus.Fields{"event": ev.Kind, "lease_id": ev.Lease, "vm_index": ev.Index,
		"host": ev.Host}).Info(ev.Detail)
	select {
	case d.events <- ev:
	case <-d.done:
	}
}
