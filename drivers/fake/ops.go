package fake

import (
	"context"
	"fmt"
	"time"

	"github.com/bora-sched/bora/drivers"
)

// move is a VM and the host an operation puts it on.
type move struct {
	v  *vm
	to string
}

// moveAll makes job j move each VM in todo to its host when it ends,
// leaving its state as it is (a migration, cold or live).
func (j *job) moveAll(todo []move) {
	j.work = len(todo)
	j.apply = func(time.Time) {
		for _, m := range todo {
			m.v.host = m.to
			m.v.gen++
		}
	}
}

// Start boots the VMs, each on its Host, in the boot time (Config.Boot,
// or else Overheads.Enactment) for the whole call. A VM already running
// on its Host is left alone; one in any other state or place is created
// anew there (its run time starts again from zero). It returns
// drivers.ErrUnknownHost or drivers.ErrHostDown for a VM's host, the
// operation's errors documented on Driver, or ctx's error.
func (d *Driver) Start(ctx context.Context, vms []drivers.VM) error {
	return d.do(ctx, OpStart, vms, func(j *job) error {
		var todo []drivers.VM
		for _, v := range vms {
			name := v.Name()
			if err := d.useHostsLocked(j, OpStart, name, v.Host); err != nil {
				return err
			}
			cur := d.vms[name]
			if cur != nil && cur.host == v.Host && cur.state == drivers.Running {
				continue
			}
			j.watch(cur)
			todo = append(todo, v)
		}
		if len(todo) > 0 {
			j.dur = d.boot
		}
		j.work = len(todo)
		j.apply = func(end time.Time) {
			for _, v := range todo {
				d.vms[v.Name()] = &vm{
					name: v.Name(), lease: v.Lease, index: v.Index, bora: true,
					host: v.Host, state: drivers.Running, cpu: v.CPU, memory: v.Memory,
					since: end,
				}
			}
		}
		return nil
	})
}

// Suspend pauses the running VMs, then saves each one's memory image:
// n*t_p + sum t_s over the VMs not yet saved (a paused VM needs no
// pause), or on local storage the longest of each host's share of that
// (docs/models.md §2). A saved VM, wherever its image is, is left alone. It returns
// ErrNoSuchVM for a VM that is not on its Host, ErrWrongState for a
// stopped one, drivers.ErrUnknownHost, drivers.ErrHostDown, ErrChanged,
// ErrInjected or ctx's error.
func (d *Driver) Suspend(ctx context.Context, vms []drivers.VM) error {
	return d.do(ctx, OpSuspend, vms, func(j *job) error {
		var todo []*vm
		var per perHost
		for _, v := range vms {
			name := v.Name()
			if err := d.useHostsLocked(j, OpSuspend, name, v.Host); err != nil {
				return err
			}
			cur := d.vms[name]
			switch {
			case cur != nil && cur.state == drivers.Saved:
				continue
			case cur == nil || cur.host != v.Host:
				return fmt.Errorf("suspend %s: not on %s: %w", name, v.Host, ErrNoSuchVM)
			case cur.state == drivers.Running:
				per.add(v.Host, d.ov.Pause)
				j.freeze = append(j.freeze, cur)
			case cur.state != drivers.Paused:
				return fmt.Errorf("suspend %s on %s: it is %s: %w", name, v.Host, cur.state, ErrWrongState)
			}
			j.watch(cur)
			todo = append(todo, cur)
			per.add(v.Host, d.ov.SuspendVM(v.Memory))
		}
		j.dur += d.ov.Span(per.times)
		j.work = len(todo)
		j.apply = func(end time.Time) {
			for _, v := range todo {
				v.halt(end, drivers.Saved, "")
			}
		}
		return nil
	})
}

// Resume restores each saved VM on its Host (the image may be anywhere)
// and unpauses it: sum t_r + n*t_p, or on local storage the longest of
// each host's share of that; a VM paused on its
// Host is only unpaused (t_p). A VM already running on its Host is left
// alone. It returns drivers.ErrNotSaved for a VM with no saved image that
// is not paused or running there, drivers.ErrUnknownHost,
// drivers.ErrHostDown, ErrChanged, ErrInjected or ctx's error.
func (d *Driver) Resume(ctx context.Context, vms []drivers.VM) error {
	return d.do(ctx, OpResume, vms, func(j *job) error {
		var todo []move
		var per perHost
		for _, v := range vms {
			name := v.Name()
			if err := d.useHostsLocked(j, OpResume, name, v.Host); err != nil {
				return err
			}
			cur := d.vms[name]
			switch {
			case cur == nil:
				return fmt.Errorf("resume %s on %s: %w", name, v.Host, drivers.ErrNotSaved)
			case cur.host == v.Host && cur.state == drivers.Running:
				continue
			case cur.host == v.Host && cur.state == drivers.Paused:
			case cur.state == drivers.Saved:
				per.add(v.Host, d.ov.ResumeVM(v.Memory))
			default:
				return fmt.Errorf("resume %s on %s: it is %s on %s: %w", name, v.Host, cur.state, cur.host, drivers.ErrNotSaved)
			}
			per.add(v.Host, d.ov.Pause)
			j.watch(cur)
			todo = append(todo, move{cur, v.Host})
		}
		j.dur += d.ov.Span(per.times)
		j.work = len(todo)
		j.apply = func(end time.Time) {
			for _, m := range todo {
				m.v.host, m.v.state, m.v.detail = m.to, drivers.Running, ""
				m.v.since = end
				m.v.gen++
			}
		}
		return nil
	})
}

// Migrate moves saved images from from[i] to vms[i].Host: sum t_copy over
// the VMs whose source differs from their destination. An image already
// on its destination, or a VM already running there, is left alone. It
// returns ErrInvalid if len(from) != len(vms), drivers.ErrNotSaved for a
// VM with no saved image, drivers.ErrUnknownHost or drivers.ErrHostDown
// for a source or destination, ErrChanged, ErrInjected or ctx's error.
func (d *Driver) Migrate(ctx context.Context, vms []drivers.VM, from []string) error {
	if len(from) != len(vms) {
		return fmt.Errorf("migrate: %d VMs but %d source hosts: %w", len(vms), len(from), ErrInvalid)
	}
	return d.relocate(ctx, OpMigrate, vms, from, func(v drivers.VM, cur *vm, from string) (string, time.Duration, error) {
		name := v.Name()
		switch {
		case cur == nil:
			return "", 0, fmt.Errorf("migrate %s to %s: %w", name, v.Host, drivers.ErrNotSaved)
		case cur.host == v.Host && (cur.state == drivers.Running || cur.state == drivers.Saved):
			return "", 0, nil
		case cur.state != drivers.Saved:
			return "", 0, fmt.Errorf("migrate %s to %s: it is %s on %s: %w", name, v.Host, cur.state, cur.host, drivers.ErrNotSaved)
		}
		var cost time.Duration
		if from != v.Host {
			cost = d.ov.CopyVM(v.Memory)
		}
		return v.Host, cost, nil
	})
}

// LiveMigrate moves running (or paused) VMs from vms[i].Host to to[i]
// while they keep running: sum t_copy over the VMs not yet on their
// destination. It returns ErrInvalid if len(to) != len(vms), ErrNoSuchVM
// for a VM on neither host, ErrWrongState for one not running or paused,
// drivers.ErrUnknownHost, drivers.ErrHostDown, ErrChanged, ErrInjected or
// ctx's error.
func (d *Driver) LiveMigrate(ctx context.Context, vms []drivers.VM, to []string) error {
	if len(to) != len(vms) {
		return fmt.Errorf("live-migrate: %d VMs but %d destination hosts: %w", len(vms), len(to), ErrInvalid)
	}
	return d.relocate(ctx, OpLiveMigrate, vms, to, func(v drivers.VM, cur *vm, to string) (string, time.Duration, error) {
		name := v.Name()
		alive := cur != nil && (cur.state == drivers.Running || cur.state == drivers.Paused)
		switch {
		case alive && cur.host == to:
			return "", 0, nil
		case cur == nil || cur.host != v.Host:
			return "", 0, fmt.Errorf("live-migrate %s: not on %s: %w", name, v.Host, ErrNoSuchVM)
		case !alive:
			return "", 0, fmt.Errorf("live-migrate %s on %s: it is %s: %w", name, v.Host, cur.state, ErrWrongState)
		}
		return to, d.ov.CopyVM(v.Memory), nil
	})
}

// relocate is what Migrate and LiveMigrate share: for each VM it takes
// both its Host and peers[i] into use, then asks plan (under the lock,
// with the VM's current record, nil if unknown) where it goes and at what
// cost; an empty destination leaves the VM alone. The job moves every
// VM not left alone when it ends.
func (d *Driver) relocate(ctx context.Context, op string, vms []drivers.VM, peers []string,
	plan func(v drivers.VM, cur *vm, peer string) (dest string, cost time.Duration, err error)) error {
	return d.do(ctx, op, vms, func(j *job) error {
		var todo []move
		for i, v := range vms {
			if err := d.useHostsLocked(j, op, v.Name(), v.Host, peers[i]); err != nil {
				return err
			}
			cur := d.vms[v.Name()]
			dest, cost, err := plan(v, cur, peers[i])
			if err != nil {
				return err
			}
			if dest == "" {
				continue
			}
			j.dur += cost
			j.watch(cur)
			todo = append(todo, move{cur, dest})
		}
		j.moveAll(todo)
		return nil
	})
}

// Stop destroys the VMs at once: n*t_stop over the VMs with a process
// (running or paused); a saved VM becomes stopped at no cost. A VM that is
// absent or already stopped is not an error. It returns
// drivers.ErrUnknownHost or drivers.ErrHostDown for a VM's Host,
// ErrChanged, ErrInjected or ctx's error.
func (d *Driver) Stop(ctx context.Context, vms []drivers.VM) error {
	return d.halt(ctx, OpStop, vms, "stopped", func(n int) time.Duration {
		return time.Duration(n) * d.ov.Stop
	})
}

// Shutdown shuts the VMs down in min(grace, Overheads.Shutdown) if any
// has a process, else at once; otherwise as Stop.
func (d *Driver) Shutdown(ctx context.Context, vms []drivers.VM, grace time.Duration) error {
	return d.halt(ctx, OpShutdown, vms, "shut down", func(n int) time.Duration {
		if n == 0 {
			return 0
		}
		return max(min(grace, d.ov.Shutdown), 0)
	})
}

// halt is Stop and Shutdown: took says how long n VMs with a process
// take.
func (d *Driver) halt(ctx context.Context, op string, vms []drivers.VM, detail string, took func(n int) time.Duration) error {
	return d.do(ctx, op, vms, func(j *job) error {
		var todo []*vm
		n := 0
		for _, v := range vms {
			name := v.Name()
			if err := d.useHostsLocked(j, op, name, v.Host); err != nil {
				return err
			}
			cur := d.vms[name]
			if cur == nil || cur.state == drivers.Stopped {
				continue
			}
			switch cur.state {
			case drivers.Running:
				j.freeze = append(j.freeze, cur)
				n++
			case drivers.Paused:
				n++
			}
			j.hosts = append(j.hosts, cur.host)
			j.watch(cur)
			todo = append(todo, cur)
		}
		j.dur = took(n)
		j.work = len(todo)
		j.apply = func(end time.Time) {
			for _, v := range todo {
				v.halt(end, drivers.Stopped, detail)
			}
		}
		return nil
	})
}

// Cleanup removes the VMs, whatever their state, at once. An absent VM is
// not an error. It returns drivers.ErrUnknownHost or drivers.ErrHostDown
// for a VM's Host, ErrChanged or ctx's error.
func (d *Driver) Cleanup(ctx context.Context, vms []drivers.VM) error {
	return d.do(ctx, "cleanup", vms, func(j *job) error {
		var todo []string
		for _, v := range vms {
			name := v.Name()
			if err := d.useHostsLocked(j, "cleanup", name, v.Host); err != nil {
				return err
			}
			if cur := d.vms[name]; cur != nil {
				j.watch(cur)
				todo = append(todo, name)
			}
		}
		j.work = len(todo)
		j.apply = func(time.Time) {
			for _, name := range todo {
				delete(d.vms, name)
			}
		}
		return nil
	})
}

// perHost adds up the time an operation spends on each host, for the
// overhead model's Span: summed on shared storage, the longest on local
// storage (docs/models.md §2).
type perHost struct {
	at    map[string]int
	times []time.Duration
}

func (p *perHost) add(host string, d time.Duration) {
	if p.at == nil {
		p.at = map[string]int{}
	}
	i, ok := p.at[host]
	if !ok {
		i = len(p.times)
		p.at[host] = i
		p.times = append(p.times, 0)
	}
	p.times[i] += d
}
