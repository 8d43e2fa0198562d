package libvirt

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/drivers"
)

// CalibrationLease is the lease number of the test VM Calibrate boots
// (its domain is bora-<CalibrationLease>-0).
const CalibrationLease drivers.LeaseID = 999999999

// Result is what Calibrate measured on one host.
type Result struct {
	Host     string `json:"host"`
	MemoryMB int64  `json:"memory_mb"` // the test VM's memory
	FilledMB int64  `json:"filled_mb"` // of it, written with data before measuring (0: template without kernel)
	SavedMB  int64  `json:"saved_mb"`  // size of the saved image

	Boot          time.Duration `json:"boot"`           // start until the guest had filled its memory
	PauseTime     time.Duration `json:"pause"`          // pausing the running VM
	SaveTime      time.Duration `json:"save"`           // saving the paused VM to the shared directory
	RestoreTime   time.Duration `json:"restore"`        // restoring it, paused
	UnpauseTime   time.Duration `json:"unpause"`        // unpausing it
	LiveMigration time.Duration `json:"live_migration"` // to the second host (0: none given)
	LiveMigrateTo string        `json:"live_migrate_to,omitempty"`

	// The overhead model's parameters (docs/models.md §2): MB of VM
	// memory per second of save and of restore, and the pause (= unpause)
	// time, the larger of the two measured.
	SuspendRate float64       `json:"suspend_rate"`
	ResumeRate  float64       `json:"resume_rate"`
	Pause       time.Duration `json:"pause_time"`
}

// fillMB is how much of a memMB guest Calibrate fills: as much as leaves
// the kernel and the initramfs about 100 MB, and at least half.
func fillMB(memMB int64) int64 { return max(memMB/2, memMB-100) }

// Calibrate measures the suspend and resume rates and the pause time of
// cfg.Hosts[0] with a test VM of memMB MB built from cfg.Template: it
// boots the VM (with a kernel, "fill=N" is added to the command line so
// that the guest writes N MB of data first, as the build-guest.sh guest
// does), pauses, saves, restores and unpauses it, and, when cfg has a
// second host and live migration, migrates it there live. The VM is
// destroyed and cleaned up at the end, whatever happens. Errors wrap
// ErrCalibration, or are New's and the operations' errors.
func Calibrate(ctx context.Context, cfg Config, memMB int64, log *logrus.Entry) (Result, error) {
	if memMB < 96 {
		return Result{}, fmt.Errorf("%w: memory %d MB is too little to boot (96 at least)", ErrCalibration, memMB)
	}
	res := Result{MemoryMB: memMB}
	if cfg.Template.Kernel != "" {
		res.FilledMB = fillMB(memMB)
		cfg.Template.Cmdline = strings.TrimSpace(cfg.WithDefaults().Template.Cmdline + fmt.Sprintf(" fill=%d", res.FilledMB))
	}
	d, err := New(ctx, cfg, log)
	if err != nil {
		return res, err
	}
	defer d.Close()
	if len(cfg.Hosts) == 0 {
		return res, fmt.Errorf("%w: no host", ErrCalibration)
	}
	hosts, err := d.Hosts(ctx)
	if err != nil {
		return res, err
	}
	for _, h := range hosts {
		if !h.Up {
			return res, fmt.Errorf("%w: host %s: %w", ErrCalibration, h.Name, drivers.ErrHostDown)
		}
	}
	vm := drivers.VM{Lease: CalibrationLease, Index: 0, Host: cfg.Hosts[0].Name, CPU: 100, Memory: memMB}
	res.Host = vm.Host
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = d.Cleanup(cctx, []drivers.VM{vm})
	}()
	if err := d.Cleanup(ctx, []drivers.VM{vm}); err != nil {
		return res, err
	}
	if err := d.measure(ctx, vm, &res); err != nil {
		return res, err
	}
	if len(cfg.Hosts) > 1 && d.cfg.Migration == "live" {
		res.LiveMigrateTo = cfg.Hosts[1].Name
		t := time.Now()
		if err := d.LiveMigrate(ctx, []drivers.VM{vm}, []string{res.LiveMigrateTo}); err != nil {
			return res, err
		}
		res.LiveMigration = time.Since(t)
	}
	return res, nil
}

// measure boots vm, then times each step of a suspension and a resumption.
func (d *Driver) measure(ctx context.Context, vm drivers.VM, res *Result) error {
	t := time.Now()
	if err := d.Start(ctx, []drivers.VM{vm}); err != nil {
		return err
	}
	if err := d.waitReady(ctx, vm, res.FilledMB > 0); err != nil {
		return err
	}
	res.Boot = time.Since(t)
	steps := []struct {
		out *time.Duration
		do  func() error
	}{
		{&res.PauseTime, func() error { _, err := d.pauseOne(ctx, vm); return err }},
		{&res.SaveTime, func() error { return d.saveOne(ctx, vm) }},
		{&res.RestoreTime, func() error { return d.restoreOne(ctx, vm) }},
		{&res.UnpauseTime, func() error { return d.unpauseOne(ctx, vm) }},
	}
	for i, s := range steps {
		t := time.Now()
		if err := s.do(); err != nil {
			return err
		}
		*s.out = time.Since(t)
		if i == 1 { // saved: the image is complete
			if fi, err := os.Stat(savePath(d.cfg.SharedDir, vm.Name())); err == nil {
				res.SavedMB = fi.Size() >> 20
			}
		}
	}
	d.finishResume(ctx, vm)
	res.SuspendRate = float64(res.MemoryMB) / res.SaveTime.Seconds()
	res.ResumeRate = float64(res.MemoryMB) / res.RestoreTime.Seconds()
	res.Pause = max(res.PauseTime, res.UnpauseTime)
	return nil
}

// waitReady waits until the guest says on its console that it filled its
// memory (or, without fill, printed its first counter); a guest that says
// nothing within readyTimeout is measured anyway after that wait.
func (d *Driver) waitReady(ctx context.Context, vm drivers.VM, filled bool) error {
	const readyTimeout = 5 * time.Minute
	want := "bora-counter "
	if filled {
		want = "bora-guest: filled"
	}
	path := consolePath(d.cfg.SharedDir, vm.Name())
	end := time.Now().Add(readyTimeout)
	for time.Now().Before(end) {
		if consoleHas(path, want) {
			return nil
		}
		if !sleepCtx(ctx, 250*time.Millisecond) {
			return ctx.Err()
		}
	}
	if filled {
		return fmt.Errorf("%w: the guest did not report %q on its console (%s) within %v", ErrCalibration, want, path, readyTimeout)
	}
	d.log.Warn("guest prints nothing on its console; measuring after the wait")
	return nil
}

func consoleHas(path, prefix string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(strings.TrimSpace(sc.Text()), prefix) {
			return true
		}
	}
	return false
}
