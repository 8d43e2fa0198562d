package libvirt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/bora-sched/bora/drivers"
)

// domInfo is what lookup found of one domain.
type domInfo struct {
	dom    golibvirt.Domain
	found  bool
	state  golibvirt.DomainState
	reason int32
}

func (i domInfo) active() bool { return i.found && active(i.state) }

// lookup finds a domain by name and reads its state; a domain that is not
// there is found=false, not an error.
func lookup(l *golibvirt.Libvirt, name string) (domInfo, error) {
	dom, err := l.DomainLookupByName(name)
	if err != nil {
		if golibvirt.IsNotFound(err) {
			return domInfo{}, nil
		}
		return domInfo{}, err
	}
	st, reason, err := l.DomainGetState(dom, 0)
	if err != nil {
		if golibvirt.IsNotFound(err) {
			return domInfo{}, nil
		}
		return domInfo{}, err
	}
	return domInfo{dom: dom, found: true, state: golibvirt.DomainState(st), reason: reason}, nil
}

// settle waits while an asynchronous job (a save or a migration that an
// attempt cut off by its context started, and libvirtd goes on with) runs
// on the domain, then returns the domain as it is then. libvirt refuses a
// second migration meanwhile instead of waiting.
func settle(ctx context.Context, l *golibvirt.Libvirt, name string, info domInfo) (domInfo, error) {
	for info.active() {
		typ, _, _, _, _, _, _, _, _, _, _, _, err := l.DomainGetJobInfo(info.dom)
		if err != nil && !notRunning(err) {
			return info, err
		}
		if t := golibvirt.DomainJobType(typ); err == nil && t != golibvirt.DomainJobBounded && t != golibvirt.DomainJobUnbounded {
			return info, nil
		}
		if !sleepCtx(ctx, 200*time.Millisecond) {
			return info, ctx.Err()
		}
		if info, err = lookup(l, name); err != nil {
			return info, err
		}
	}
	return info, nil
}

// vmErr wraps err with the VM and host an operation failed on.
func vmErr(op string, vm drivers.VM, host string, err error) error {
	return fmt.Errorf("%s %s on %s: %w", op, vm.Name(), host, err)
}

// Start defines each VM's domain on its Host (with a fresh copy-on-write
// overlay when the template has a disk) and boots it. A VM already
// running (or paused) there is left alone; one defined but shut off is
// started again from its definition as it is. Errors
// wrap drivers.ErrUnknownHost, drivers.ErrHostDown, ErrInvalidVM,
// ErrUnknownImage, or libvirt's error.
func (d *Driver) Start(ctx context.Context, vms []drivers.VM) error {
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	for _, vm := range vms {
		if err := d.startOne(ctx, vm); err != nil {
			return err
		}
	}
	return nil
}

func (d *Driver) startOne(ctx context.Context, vm drivers.VM) error {
	h, err := d.host(vm.Host)
	if err != nil {
		return vmErr("start", vm, vm.Host, err)
	}
	xml, err := DomainXML(d.cfg, vm)
	if err != nil {
		return err
	}
	base, _ := baseImage(d.cfg, vm)
	name := vm.Name()
	log := h.log.WithField("vm", name).WithField("lease_id", vm.Lease)
	err = d.do(ctx, h, func(l *golibvirt.Libvirt) error {
		info, err := lookup(l, name)
		if err != nil {
			return err
		}
		if info.active() {
			log.Debug("already running")
			return nil
		}
		if base != "" {
			if err := d.ensureOverlay(ctx, base, overlayPath(d.cfg.SharedDir, name)); err != nil {
				return err
			}
		}
		dom := info.dom
		if !info.found {
			if dom, err = l.DomainDefineXMLFlags(xml, 0); err != nil {
				return err
			}
		}
		if _, err := l.DomainCreateWithFlags(dom, 0); err != nil {
			if libvirtCode(err) == int(golibvirt.ErrOperationInvalid) {
				if again, lerr := lookup(l, name); lerr == nil && again.active() {
					return nil // started meanwhile
				}
			}
			return err
		}
		log.Info("vm started")
		return nil
	})
	if err != nil {
		return vmErr("start", vm, h.cfg.Name, err)
	}
	return nil
}

// ensureOverlay creates the copy-on-write overlay of base at path unless
// it exists (written aside, then renamed: a file there is complete).
func (d *Driver) ensureOverlay(ctx context.Context, base, path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	tmp := path + ".part"
	_ = os.Remove(tmp)
	cmd := exec.CommandContext(ctx, d.cfg.QemuImg, "create", "-q", "-f", "qcow2", "-b", base, "-F", "qcow2", tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("creating overlay %s of %s: %v: %s", path, base, err, strings.TrimSpace(string(out)))
	}
	return os.Rename(tmp, path)
}

// Stop destroys the VMs at once. A VM that is not running (or not there)
// is not an error. Errors wrap drivers.ErrUnknownHost, drivers.ErrHostDown
// or libvirt's error.
func (d *Driver) Stop(ctx context.Context, vms []drivers.VM) error {
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	for _, vm := range vms {
		h, err := d.host(vm.Host)
		if err != nil {
			return vmErr("stop", vm, vm.Host, err)
		}
		if err := d.destroy(ctx, h, vm.Name()); err != nil {
			return vmErr("stop", vm, h.cfg.Name, err)
		}
	}
	return nil
}

// destroy kills name on h if it runs there.
func (d *Driver) destroy(ctx context.Context, h *host, name string) error {
	return d.do(ctx, h, func(l *golibvirt.Libvirt) error {
		info, err := lookup(l, name)
		if err != nil || !info.active() {
			return err
		}
		d.expectStop(h, name, deadline(ctx))
		if err := l.DomainDestroyFlags(info.dom, golibvirt.DomainDestroyDefault); err != nil {
			if notRunning(err) {
				return nil // it stopped by itself meanwhile: that event is ours too
			}
			d.expected.drop(h.cfg.Name, name)
			return err
		}
		h.log.WithField("vm", name).Info("vm destroyed")
		return nil
	})
}

// shutdownPoll is how often Shutdown looks whether the guests are off.
const shutdownPoll = 200 * time.Millisecond

// Shutdown presses each running VM's ACPI power button, waits up to grace
// (less if ctx ends sooner: the destroys still fit in it) for them to
// power off, then destroys the rest. Paused VMs cannot react and are
// destroyed at once. A VM not running is not an error.
func (d *Driver) Shutdown(ctx context.Context, vms []drivers.VM, grace time.Duration) error {
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	type pending struct {
		vm drivers.VM
		h  *host
	}
	var wait []pending
	for _, vm := range vms {
		h, err := d.host(vm.Host)
		if err != nil {
			return vmErr("shutdown", vm, vm.Host, err)
		}
		err = d.do(ctx, h, func(l *golibvirt.Libvirt) error {
			info, err := lookup(l, vm.Name())
			if err != nil || !info.active() || info.state == golibvirt.DomainPaused {
				return err
			}
			d.expectStop(h, vm.Name(), deadline(ctx))
			if err := l.DomainShutdownFlags(info.dom, golibvirt.DomainShutdownAcpiPowerBtn); err != nil {
				if notRunning(err) {
					return nil
				}
				d.expected.drop(h.cfg.Name, vm.Name())
				return err
			}
			return nil
		})
		if err != nil {
			return vmErr("shutdown", vm, h.cfg.Name, err)
		}
		// Paused VMs were not asked: the wait below does not count them.
		wait = append(wait, pending{vm, h})
	}
	end := time.Now().Add(grace)
	if dl, ok := ctx.Deadline(); ok {
		margin := min(5*time.Second, time.Until(dl)/10)
		end = minTime(end, dl.Add(-margin))
	}
	for len(wait) > 0 && time.Now().Before(end) {
		left := wait[:0]
		for _, p := range wait {
			var on bool
			err := d.do(ctx, p.h, func(l *golibvirt.Libvirt) error {
				info, err := lookup(l, p.vm.Name())
				on = info.active() && info.state != golibvirt.DomainPaused
				return err
			})
			if err != nil {
				return vmErr("shutdown", p.vm, p.h.cfg.Name, err)
			}
			if on {
				left = append(left, p)
			}
		}
		wait = left
		if len(wait) > 0 && !sleepCtx(ctx, shutdownPoll) {
			break
		}
	}
	for _, p := range wait {
		if err := d.destroy(ctx, p.h, p.vm.Name()); err != nil {
			return vmErr("shutdown", p.vm, p.h.cfg.Name, err)
		}
	}
	return nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func sleepCtx(ctx context.Context, t time.Duration) bool {
	timer := time.NewTimer(t)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Cleanup removes everything left of the VMs: it destroys and undefines
// their domains on their Host and on every other reachable host (a VM
// with Host "" is looked for everywhere), then deletes the overlay, the
// saved image and the console log. What is already gone is not an error;
// an unreachable Host is (drivers.ErrHostDown).
func (d *Driver) Cleanup(ctx context.Context, vms []drivers.VM) error {
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	for _, vm := range vms {
		if err := d.cleanupOne(ctx, vm); err != nil {
			return err
		}
	}
	return nil
}

func (d *Driver) cleanupOne(ctx context.Context, vm drivers.VM) error {
	if vm.Host != "" {
		if _, err := d.host(vm.Host); err != nil {
			return vmErr("cleanup", vm, vm.Host, err)
		}
	}
	name := vm.Name()
	for _, h := range d.order {
		err := d.do(ctx, h, func(l *golibvirt.Libvirt) error {
			info, err := lookup(l, name)
			if err != nil || !info.found {
				return err
			}
			if info.active() {
				d.expectStop(h, name, deadline(ctx))
				if err := l.DomainDestroyFlags(info.dom, golibvirt.DomainDestroyDefault); err != nil && !notRunning(err) {
					d.expected.drop(h.cfg.Name, name)
					return err
				}
			}
			err = l.DomainUndefineFlags(info.dom, golibvirt.DomainUndefineManagedSave|golibvirt.DomainUndefineSnapshotsMetadata)
			if err != nil && !notRunning(err) {
				return err
			}
			h.log.WithField("vm", name).Debug("domain undefined")
			return nil
		})
		if err != nil {
			if h.cfg.Name != vm.Host && errors.Is(err, drivers.ErrHostDown) {
				continue // never was there, as far as bora knows
			}
			return vmErr("cleanup", vm, h.cfg.Name, err)
		}
	}
	dir := d.cfg.SharedDir
	for _, p := range []string{overlayPath(dir, name), overlayPath(dir, name) + ".part", savePath(dir, name), partPath(dir, name), consolePath(dir, name)} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return vmErr("cleanup", vm, vm.Host, err)
		}
	}
	d.log.WithField("vm", name).WithField("lease_id", vm.Lease).Info("vm cleaned up")
	return nil
}
