package libvirt

import (
	"context"
	"fmt"
	"os"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/bora-sched/bora/drivers"
)

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Suspend pauses every VM of the list first (so the lease stops computing
// at once), then saves each one's memory image to <shared_dir>/<name>.save
// and removes its domain from the host. The image is written aside and
// renamed when complete, so a .save file is always a whole image. A VM
// already saved (its image there, no domain running) is left alone.
// Errors wrap drivers.ErrUnknownHost, drivers.ErrHostDown, ErrNoDomain (a
// VM neither running nor saved) or libvirt's error.
func (d *Driver) Suspend(ctx context.Context, vms []drivers.VM) error {
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	var save []drivers.VM
	for _, vm := range vms {
		need, err := d.pauseOne(ctx, vm)
		if err != nil {
			return vmErr("suspend", vm, vm.Host, err)
		}
		if need {
			save = append(save, vm)
		}
	}
	for _, vm := range save {
		if err := d.saveOne(ctx, vm); err != nil {
			return vmErr("suspend", vm, vm.Host, err)
		}
	}
	return nil
}

// pauseOne pauses vm if it runs and says whether it still has to be saved
// (or its leftover definition removed).
func (d *Driver) pauseOne(ctx context.Context, vm drivers.VM) (bool, error) {
	h, err := d.host(vm.Host)
	if err != nil {
		return false, err
	}
	name := vm.Name()
	file, part := savePath(d.cfg.SharedDir, name), partPath(d.cfg.SharedDir, name)
	need := false
	err = d.do(ctx, h, func(l *golibvirt.Libvirt) error {
		info, err := lookup(l, name)
		if err == nil {
			info, err = settle(ctx, l, name, info)
		}
		switch {
		case err != nil:
			return err
		case info.active():
			need = true
			if info.state == golibvirt.DomainPaused {
				return nil
			}
			if err := l.DomainSuspend(info.dom); err != nil {
				return err
			}
			h.log.WithField("vm", name).Debug("vm paused")
			return nil
		case exists(file):
			need = info.found // a definition left behind by an interrupted suspend
			return nil
		case exists(part) && (!info.found || info.reason == int32(golibvirt.DomainShutoffSaved)):
			// The save completed (the domain is gone) but the rename did not.
			need = true
			return nil
		default:
			return fmt.Errorf("%w: neither running nor saved", ErrNoDomain)
		}
	})
	return need, err
}

// saveOne saves the paused vm, renames the image into place and undefines
// the domain.
func (d *Driver) saveOne(ctx context.Context, vm drivers.VM) error {
	h, err := d.host(vm.Host)
	if err != nil {
		return err
	}
	name := vm.Name()
	file, part := savePath(d.cfg.SharedDir, name), partPath(d.cfg.SharedDir, name)
	return d.do(ctx, h, func(l *golibvirt.Libvirt) error {
		info, err := lookup(l, name)
		if err == nil {
			info, err = settle(ctx, l, name, info)
		}
		if err != nil {
			return err
		}
		if info.active() && exists(part) {
			// An earlier attempt whose context ended may be finishing its
			// save: its job is over, and the domain stops once the image
			// is complete. Saving again then would race the domain's end.
			if info, err = awaitSaved(ctx, l, name, info); err != nil {
				return err
			}
		}
		if info.active() {
			// libvirt truncates a .part left by a failed attempt. One still
			// being written by an attempt whose context ended is not
			// removed: this save waits for that job, then finds the domain
			// gone, and the image complete.
			d.expectStop(h, name, deadline(ctx))
			if err := l.DomainSaveFlags(info.dom, part, nil, 0); err != nil {
				d.expected.drop(h.cfg.Name, name)
				again, lerr := lookup(l, name)
				if lerr != nil || again.active() || !notRunning(err) {
					return err
				}
				h.log.WithField("vm", name).Debug("saved meanwhile by an earlier attempt")
			} else {
				h.log.WithField("vm", name).Info("vm saved")
			}
		}
		if !exists(file) {
			if err := os.Rename(part, file); err != nil {
				return fmt.Errorf("saved image: %w", err)
			}
		}
		info, err = lookup(l, name)
		if err != nil || !info.found || info.active() {
			return err
		}
		err = l.DomainUndefineFlags(info.dom, golibvirt.DomainUndefineManagedSave|golibvirt.DomainUndefineSnapshotsMetadata)
		if err != nil && !notRunning(err) {
			return err
		}
		return nil
	})
}

// Resume restores every saved VM on its Host, paused, then unpauses them
// all, then deletes the images (now stale) and makes the restored domains
// persistent. A VM already running on its Host is left alone (and a
// paused one unpaused). Errors wrap drivers.ErrNotSaved (no image and not
// running there), drivers.ErrUnknownHost, drivers.ErrHostDown or
// libvirt's error.
func (d *Driver) Resume(ctx context.Context, vms []drivers.VM) error {
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	for _, vm := range vms {
		if err := d.restoreOne(ctx, vm); err != nil {
			return vmErr("resume", vm, vm.Host, err)
		}
	}
	for _, vm := range vms {
		if err := d.unpauseOne(ctx, vm); err != nil {
			return vmErr("resume", vm, vm.Host, err)
		}
	}
	for _, vm := range vms {
		d.finishResume(ctx, vm)
	}
	return nil
}

// restoreOne restores vm paused on its Host unless it runs there.
func (d *Driver) restoreOne(ctx context.Context, vm drivers.VM) error {
	h, err := d.host(vm.Host)
	if err != nil {
		return err
	}
	name := vm.Name()
	file := savePath(d.cfg.SharedDir, name)
	return d.do(ctx, h, func(l *golibvirt.Libvirt) error {
		info, err := lookup(l, name)
		if err != nil || info.active() {
			return err
		}
		if !exists(file) {
			return drivers.ErrNotSaved
		}
		if err := l.DomainRestoreFlags(file, nil, uint32(golibvirt.DomainSavePaused)); err != nil {
			if again, lerr := lookup(l, name); lerr == nil && again.active() {
				return nil // restored meanwhile by an earlier attempt
			}
			return err
		}
		h.log.WithField("vm", name).Info("vm restored")
		return nil
	})
}

// unpauseOne unpauses vm on its Host.
func (d *Driver) unpauseOne(ctx context.Context, vm drivers.VM) error {
	h, err := d.host(vm.Host)
	if err != nil {
		return err
	}
	return d.do(ctx, h, func(l *golibvirt.Libvirt) error {
		info, err := lookup(l, vm.Name())
		switch {
		case err != nil:
			return err
		case !info.active():
			return fmt.Errorf("%w: stopped right after its restore", ErrNoDomain)
		case info.state == golibvirt.DomainPaused:
			return l.DomainResume(info.dom)
		}
		return nil
	})
}

// finishResume deletes vm's stale image and defines the restored
// (transient) domain persistently, so that it stays known shut off like a
// started one. Failures only log: the VM runs.
func (d *Driver) finishResume(ctx context.Context, vm drivers.VM) {
	h, _ := d.host(vm.Host)
	name := vm.Name()
	log := h.log.WithField("vm", name)
	if err := os.Remove(savePath(d.cfg.SharedDir, name)); err != nil && !os.IsNotExist(err) {
		log.WithError(err).Warn("cannot remove the stale saved image")
	}
	err := d.do(ctx, h, func(l *golibvirt.Libvirt) error {
		info, err := lookup(l, name)
		if err != nil || !info.found {
			return err
		}
		if p, err := l.DomainIsPersistent(info.dom); err != nil || p == 1 {
			return err
		}
		xml, err := l.DomainGetXMLDesc(info.dom, golibvirt.DomainXMLSecure)
		if err != nil {
			return err
		}
		_, err = l.DomainDefineXMLFlags(xml, 0)
		return err
	})
	if err != nil {
		log.WithError(err).Warn("restored domain stays transient")
	}
}

// Migrate has nothing to copy: saved images are on shared storage that
// every host reads. It checks that each VM has an image (or already runs
// on its destination) and returns. Errors wrap drivers.ErrNotSaved,
// drivers.ErrUnknownHost or ErrBadLength.
func (d *Driver) Migrate(ctx context.Context, vms []drivers.VM, from []string) error {
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	if len(from) != len(vms) {
		return fmt.Errorf("migrate: %w (%d hosts, %d VMs)", ErrBadLength, len(from), len(vms))
	}
	for i, vm := range vms {
		h, err := d.host(vm.Host)
		if err != nil {
			return vmErr("migrate", vm, vm.Host, err)
		}
		if _, err := d.host(from[i]); err != nil {
			return vmErr("migrate", vm, from[i], err)
		}
		if exists(savePath(d.cfg.SharedDir, vm.Name())) {
			continue
		}
		running := false
		_ = d.do(ctx, h, func(l *golibvirt.Libvirt) error {
			info, err := lookup(l, vm.Name())
			running = info.active()
			return err
		})
		if !running {
			return vmErr("migrate", vm, vm.Host, drivers.ErrNotSaved)
		}
	}
	return nil
}

// LiveMigrate moves each running VM from its Host to to[i] without
// stopping it: a peer-to-peer live migration (the source libvirtd
// connects to the destination's PeerURI and sends the memory to its
// MigrationURI); the destination's domain is persistent and the source's
// undefined. A VM already running on its destination (and not on its
// source) is left alone. With Migration "cold" it returns
// drivers.ErrUnsupported. Errors wrap drivers.ErrUnknownHost,
// drivers.ErrHostDown, ErrNoDomain, ErrBadLength or libvirt's error.
func (d *Driver) LiveMigrate(ctx context.Context, vms []drivers.VM, to []string) error {
	if d.cfg.Migration == "cold" {
		return fmt.Errorf("live migration (migration: cold): %w", drivers.ErrUnsupported)
	}
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	if len(to) != len(vms) {
		return fmt.Errorf("live migrate: %w (%d hosts, %d VMs)", ErrBadLength, len(to), len(vms))
	}
	for i, vm := range vms {
		src, err := d.host(vm.Host)
		if err != nil {
			return vmErr("live-migrate", vm, vm.Host, err)
		}
		dst, err := d.host(to[i])
		if err != nil {
			return vmErr("live-migrate", vm, to[i], err)
		}
		if err := d.liveMigrateOne(ctx, vm, src, dst); err != nil {
			return vmErr("live-migrate", vm, src.cfg.Name, err)
		}
	}
	return nil
}

func (d *Driver) liveMigrateOne(ctx context.Context, vm drivers.VM, src, dst *host) error {
	name := vm.Name()
	moved := false
	err := d.do(ctx, src, func(l *golibvirt.Libvirt) error {
		info, err := lookup(l, name)
		if err == nil && src != dst {
			info, err = settle(ctx, l, name, info)
		}
		if err != nil || !info.active() || src == dst {
			return err
		}
		d.expectStop(src, name, deadline(ctx))
		if _, err := l.DomainMigratePerform3Params(info.dom, golibvirt.OptString{dst.peerURI()},
			d.migrationParams(dst), nil, d.migrationFlags()); err != nil {
			d.expected.drop(src.cfg.Name, name)
			if again, lerr := lookup(l, name); lerr == nil && !again.active() {
				return nil // moved meanwhile by an earlier attempt: checked below
			}
			return err
		}
		moved = true
		return nil
	})
	if err != nil || moved {
		if moved {
			src.log.WithField("vm", name).WithField("to", dst.cfg.Name).Info("vm migrated live")
		}
		return err
	}
	// Not running on the source: done already if it runs on the destination.
	return d.do(ctx, dst, func(l *golibvirt.Libvirt) error {
		info, err := lookup(l, name)
		if err != nil || info.active() {
			return err
		}
		return fmt.Errorf("%w: runs neither on %s nor on %s", ErrNoDomain, src.cfg.Name, dst.cfg.Name)
	})
}

func (h *host) peerURI() string {
	if h.cfg.PeerURI != "" {
		return h.cfg.PeerURI
	}
	return h.cfg.URI
}

func (d *Driver) migrationFlags() golibvirt.DomainMigrateFlags {
	f := golibvirt.MigrateLive | golibvirt.MigratePeer2peer | golibvirt.MigratePersistDest | golibvirt.MigrateUndefineSource
	if d.cfg.MigrateUnsafe {
		f |= golibvirt.MigrateUnsafe
	}
	return f
}

func (d *Driver) migrationParams(dst *host) []golibvirt.TypedParam {
	if dst.cfg.MigrationURI == "" {
		return nil
	}
	return []golibvirt.TypedParam{{Field: golibvirt.MigrateParamURI, Value: *golibvirt.NewTypedParamValueString(dst.cfg.MigrationURI)}}
}

// awaitSaved waits, up to two seconds, for active domain name (info) to
// stop, as it does once a save an earlier attempt began is complete. It
// returns the domain as it then is: still active (no save was under way:
// the caller saves it), or stopped by a save; a domain stopped otherwise
// is an error.
func awaitSaved(ctx context.Context, l *golibvirt.Libvirt, name string, info domInfo) (domInfo, error) {
	var err error
	for i := 0; i < 10 && info.active(); i++ {
		if !sleepCtx(ctx, 200*time.Millisecond) {
			return info, ctx.Err()
		}
		if info, err = lookup(l, name); err != nil {
			return info, err
		}
	}
	if !info.active() && info.found && info.reason != int32(golibvirt.DomainShutoffSaved) {
		return info, fmt.Errorf("%w: stopped while it was being saved (reason %d)", ErrNoDomain, info.reason)
	}
	return info, nil
}
