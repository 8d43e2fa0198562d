package daemon

import (
	"context"
	"time"

	"github.com/bora-sched/bora/drivers"
)

// After each pass the daemon checks what the driver really runs against
// the hosts' capacity: the plan never puts a host over capacity, and the
// executor waits for late operations to leave a host before putting VMs
// on it (oplate.go), so a host over capacity means something ran behind
// bora's back or bora has a bug. Each breach (a host going over) is
// logged at error level and counted in bora_capacity_breaches_total.

// capacityEvery is the least real time between two checks with the fake
// driver, libvirtEvery with libvirt, where listing the VMs takes round
// trips to every host. OpenNebula's hosts are oned's to fill: borad does
// not check them.
const (
	capacityEvery = 250 * time.Millisecond
	libvirtEvery  = 10 * time.Second
)

// capacityCheck is what the check remembers between passes (in the loop).
type capacityCheck struct {
	last time.Time       // real time of the last check
	over map[string]bool // hosts over capacity at the last check
}

// usage is what VMs hold on a host.
type usage struct{ cpu, memory int64 }

// checkCapacity compares, per host, the cores and memory of the VMs the
// driver runs (running or paused) with the host's capacity (in the loop).
// A VM of a lease bora knows holds what its lease asked for; another one
// what the driver says it holds.
func (d *Daemon) checkCapacity() {
	c := &d.capacity
	every := capacityEvery
	switch d.cfg.Driver.Name {
	case "libvirt":
		every = libvirtEvery
	case "opennebula":
		return
	}
	if time.Since(c.last) < every {
		return
	}
	c.last = time.Now()
	ctx, cancel := context.WithTimeout(d.work.ctx, d.cfg.Daemon.OpTimeout)
	defer cancel()
	vms, err := d.drv.List(ctx)
	if err != nil {
		d.log.WithError(err).Debug("capacity check: the driver could not list its VMs")
		return
	}
	used := hostUsage(vms, func(v drivers.VMStatus) usage {
		if l := d.sched.Lease(v.Lease); l != nil {
			return usage{l.Req.CPU, l.Req.Memory}
		}
		return usage{v.CPU, v.Memory}
	})
	over := map[string]bool{}
	for name, u := range used {
		id, ok := d.names[name]
		if !ok {
			continue
		}
		h := d.hosts[id]
		if u.cpu <= h.CPU && u.memory <= h.Memory {
			continue
		}
		over[name] = true
		if c.over[name] {
			continue // the same breach as at the last check
		}
		d.m.breaches.Inc()
		d.log.WithField("host", name).WithField("cpu", u.cpu).WithField("cpu_capacity", h.CPU).
			WithField("memory", u.memory).WithField("memory_capacity", h.Memory).
			Error("host over capacity: the driver runs more than the host has")
	}
	c.over = over
}

// hostUsage sums size over the running and paused VMs of each host.
func hostUsage(vms []drivers.VMStatus, size func(drivers.VMStatus) usage) map[string]usage {
	out := map[string]usage{}
	for _, v := range vms {
		if v.State != drivers.Running && v.State != drivers.Paused {
			continue
		}
		s := size(v)
		u := out[v.Host]
		u.cpu += s.cpu
		u.memory += s.memory
		out[v.Host] = u
	}
	return out
}
