package opennebula

import (
	"context"
	"fmt"
	"time"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

// Power is a drivers.PowerDriver that stands OpenNebula's host status in
// for the power state: PowerOff is one.host.status OFFLINE (OpenNebula
// stops monitoring the host and places nothing on it), PowerOn is
// one.host.status ENABLED and waits until the host is MONITORED again.
// It switches no electricity: pair it with a site's own power commands
// (or OpenNebula's host hooks) when the hosts really are to go dark.
type Power struct{ d *Driver }

// Power returns the driver's PowerDriver.
func (d *Driver) Power() Power { return Power{d} }

// PowerOn enables host and waits (up to OpTimeout) until OpenNebula has
// monitored it: INIT -> MONITORED. A host already MONITORED is left
// alone; one that goes to ERROR is drivers.ErrHostDown.
func (p Power) PowerOn(ctx context.Context, host string) error {
	return p.set(ctx, host, oca.HostStatusEnabled, "power on", func(st oca.HostState) (bool, error) {
		switch {
		case hostUp(st):
			return true, nil
		case st == oca.HostError || st == oca.HostMonitoringError:
			return false, fmt.Errorf("host %s is %s: %w", host, st, drivers.ErrHostDown)
		}
		return false, nil
	}, func(st oca.HostState) bool { return st == oca.HostInit || st == oca.HostMonitoringInit })
}

// PowerOff sets host OFFLINE. A host already OFFLINE is left alone.
func (p Power) PowerOff(ctx context.Context, host string) error {
	return p.set(ctx, host, oca.HostStatusOffline, "power off", func(st oca.HostState) (bool, error) {
		return st == oca.HostOffline, nil
	}, nil)
}

// Disable stops OpenNebula from placing VMs on host (one.host.status
// DISABLED), for the daemon's "disable" host action; the VMs on it run
// on. A host already DISABLED is left alone.
func (p Power) Disable(ctx context.Context, host string) error {
	return p.set(ctx, host, oca.HostStatusDisabled, "disable", func(st oca.HostState) (bool, error) {
		return st == oca.HostDisabled || st == oca.HostMonitoringDisabled, nil
	}, nil)
}

// Enable is PowerOn: one.host.status ENABLED, done when MONITORED (the
// daemon's "enable" host action).
func (p Power) Enable(ctx context.Context, host string) error { return p.PowerOn(ctx, host) }

// set calls one.host.status(status) unless reached says the host is
// there, or pending says it is on its way, then waits for reached.
func (p Power) set(ctx context.Context, host string, status int, op string,
	reached func(oca.HostState) (bool, error), pending func(oca.HostState) bool) error {
	d := p.d
	if err := d.errClosedIf(); err != nil {
		return err
	}
	id, err := d.hostID(ctx, host)
	if err != nil {
		return fmt.Errorf("opennebula: %s: %w", op, err)
	}
	log := d.log.WithField("op", op).WithField("host", host)
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, d.cfg.OpTimeout)
	defer cancel()
	called := false
	pause := d.pollMin()
	for {
		h, err := d.one.host(ctx, id)
		if err != nil {
			return fmt.Errorf("opennebula: %s host %s: %w", op, host, err)
		}
		ok, err := reached(h.State)
		if err != nil && called {
			return fmt.Errorf("opennebula: %s: %w", op, err)
		}
		if ok {
			return nil
		}
		if !called && (pending == nil || !pending(h.State)) {
			log.WithField("state", h.State.String()).Info("calling opennebula one.host.status")
			if err := d.one.hostStatus(ctx, id, status); err != nil {
				return fmt.Errorf("opennebula: %s host %s: %w", op, host, err)
			}
			called = true
			continue
		}
		called = true
		select {
		case <-ctx.Done():
			cause := error(ErrTimeout)
			if parent.Err() != nil {
				cause = parent.Err()
			}
			return fmt.Errorf("opennebula: %s host %s: %w: still %s", op, host, cause, h.State)
		case <-time.After(pause):
		}
		if pause *= 2; pause > d.cfg.PollInterval {
			pause = d.cfg.PollInterval
		}
	}
}
