package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

	lv "github.com/bora-sched/bora/drivers/libvirt"
	"github.com/bora-sched/bora/scheduler"
)

type calibrateFlags struct {
	host, to, migrationURI, peerURI string
	memory                          int64
	kernel, initrd, cmdline, image  string
	sharedDir, domainType, output   string
	storage                         string
	unsafe, verbose                 bool
	timeout                         time.Duration
}

// newCalibrateCmd is `bora calibrate`: measure a libvirt host's suspend and
// resume rates and pause time with a test VM, and print the config lines.
func newCalibrateCmd() *cobra.Command {
	f := &calibrateFlags{}
	cmd := &cobra.Command{
		Use:   "calibrate --host URI [--to URI] [--memory MB] (--kernel FILE [--initrd FILE] | --image FILE) [flags]",
		Short: "measure a libvirt host's suspend/resume rates and pause time for the overhead model",
		Long: `Boot a test VM on a libvirt host, fill its memory, then pause, save (suspend),
restore (resume) and unpause it, timing each step; with --to, migrate it live to
a second host too. Prints the measurements and the scheduler.overheads lines of
bora's config file. The VM (bora-999999999-0) is removed at the end.

The guest is the template the driver will use: a kernel and initramfs (the one
.ci/libvirt/build-guest.sh makes fills N MB when its command line says fill=N,
which calibrate adds) or a base image (its memory is measured as the guest
leaves it). Files are paths on the hosts, in the shared directory's storage.

--storage says where the hosts will write suspend images, and so how the rates
are used (docs/models.md §2, scheduler.overheads.storage): shared (the default:
--shared-dir is on storage every host shares, so a lease's VMs are saved one
after the other at the measured rate) or local (--shared-dir is on the host's
own disk: each host saves at the measured rate, the hosts in parallel). The
suggested config says which, with what a lease of 4 VMs would take under it.`,
		Example: `  bora calibrate --host qemu+tcp://10.0.0.1/system --to qemu+tcp://10.0.0.2/system \
      --kernel /srv/bora/guest/vmlinuz --initrd /srv/bora/guest/initrd.img \
      --shared-dir /srv/bora --memory 1024`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCalibrate(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.host, "host", "", "libvirt URI of the host to measure (required)")
	fl.StringVar(&f.to, "to", "", "libvirt URI of a second host: also measure a live migration to it")
	fl.StringVar(&f.migrationURI, "migration-uri", "", "migration stream URI of --to (default tcp://<host of --to>)")
	fl.StringVar(&f.peerURI, "peer-uri", "", "URI by which --host's libvirtd reaches --to's (default --to)")
	fl.Int64Var(&f.memory, "memory", 256, "test VM memory in MB (at least 96)")
	fl.StringVar(&f.kernel, "kernel", "", "guest kernel for direct boot")
	fl.StringVar(&f.initrd, "initrd", "", "guest initramfs")
	fl.StringVar(&f.cmdline, "cmdline", lv.DefaultCmdline, "guest kernel command line (fill=N is added)")
	fl.StringVar(&f.image, "image", "", "qcow2 base image (a copy-on-write overlay is made in --shared-dir)")
	fl.StringVar(&f.sharedDir, "shared-dir", "/var/lib/bora-shared", "shared directory for the overlay, the saved image and the console log")
	fl.StringVar(&f.domainType, "domain-type", lv.DefaultDomainType, "libvirt domain type: qemu or kvm")
	fl.BoolVar(&f.unsafe, "migrate-unsafe", false, "pass VIR_MIGRATE_UNSAFE (a disk on storage libvirt does not see as shared)")
	fl.DurationVar(&f.timeout, "timeout", 15*time.Minute, "give up after this long")
	fl.StringVar(&f.storage, "storage", "shared", "where suspend images go: shared (one store, VMs one after the other) or local (each host's disk, hosts in parallel)")
	fl.StringVarP(&f.output, "output", "o", "table", "output: table or json")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log what the driver does (to stderr)")
	return cmd
}

// calibrateConfig is the driver configuration the flags describe.
func calibrateConfig(f *calibrateFlags) (lv.Config, error) {
	if f.host == "" {
		return lv.Config{}, usage("--host is required")
	}
	if f.kernel == "" && f.image == "" {
		return lv.Config{}, usage("--kernel (with --initrd) or --image is required")
	}
	if f.output != "table" && f.output != "json" {
		return lv.Config{}, usage("-o: unknown output %q (want table or json)", f.output)
	}
	if _, err := scheduler.ParseStorage(f.storage); err != nil {
		return lv.Config{}, usage("--storage: %v", err)
	}
	cfg := lv.Config{
		Hosts:         []lv.HostConfig{{Name: "host", URI: f.host}},
		DomainType:    f.domainType,
		Template:      lv.Template{Kernel: f.kernel, Initrd: f.initrd, BaseImage: f.image},
		SharedDir:     f.sharedDir,
		MigrateUnsafe: f.unsafe,
		OpTimeout:     f.timeout,
	}
	if f.kernel != "" {
		cfg.Template.Cmdline = f.cmdline
	}
	if f.to != "" {
		to := lv.HostConfig{Name: "to", URI: f.to, PeerURI: f.peerURI, MigrationURI: f.migrationURI}
		if u, err := url.Parse(f.to); err == nil && to.MigrationURI == "" && u.Hostname() != "" {
			to.MigrationURI = "tcp://" + u.Hostname()
		}
		cfg.Hosts = append(cfg.Hosts, to)
		cfg.Hosts[0].PeerURI = f.host // only the destination's matters
	}
	if err := cfg.Validate(); err != nil {
		return lv.Config{}, usageError{err}
	}
	return cfg, nil
}

func runCalibrate(cmd *cobra.Command, f *calibrateFlags) error {
	cfg, err := calibrateConfig(f)
	if err != nil {
		return err
	}
	l := logrus.New()
	l.SetOutput(cmd.ErrOrStderr())
	l.SetLevel(logrus.WarnLevel)
	if f.verbose {
		l.SetLevel(logrus.DebugLevel)
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
	defer cancel()
	res, err := lv.Calibrate(ctx, cfg, f.memory, l.WithField("component", "calibrate"))
	if err != nil {
		return err
	}
	if f.output == "json" {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(calibrationJSON{Result: res, Storage: f.storage, Lease4: leaseOf4(f, res)})
	}
	printCalibration(cmd.OutOrStdout(), f, res)
	return nil
}

// calibrationJSON is calibrate's JSON output: the measurements, the
// storage model they are meant for, and what a lease of 4 VMs takes.
type calibrationJSON struct {
	lv.Result
	Storage string      `json:"storage"`
	Lease4  leaseFigure `json:"lease_of_4"`
}

// leaseFigure is how long a lease's VMs take to suspend and resume under
// the measured rates and pause, one VM a host: under the storage model
// given, and under both.
type leaseFigure struct {
	VMs           int           `json:"vms"`
	Suspend       time.Duration `json:"suspend"`
	Resume        time.Duration `json:"resume"`
	SharedSuspend time.Duration `json:"shared_suspend"`
	LocalSuspend  time.Duration `json:"local_suspend"`
}

// leaseOf4 works out leaseFigure for 4 VMs of the test VM's memory, one a
// host (docs/models.md §2, delta left out).
func leaseOf4(f *calibrateFlags, r lv.Result) leaseFigure {
	o := scheduler.Overheads{SuspendRate: r.SuspendRate, ResumeRate: r.ResumeRate, Pause: r.Pause, Storage: scheduler.Storage(f.storage)}
	if o.SuspendRate <= 0 || o.ResumeRate <= 0 {
		return leaseFigure{VMs: 4}
	}
	byHost := [][]int64{{r.MemoryMB}, {r.MemoryMB}, {r.MemoryMB}, {r.MemoryMB}}
	shared, local := o, o
	shared.Storage, local.Storage = scheduler.StorageShared, scheduler.StorageLocal
	return leaseFigure{VMs: 4, Suspend: o.SuspendHosts(byHost), Resume: o.ResumeHosts(byHost),
		SharedSuspend: shared.SuspendHosts(byHost), LocalSuspend: local.SuspendHosts(byHost)}
}

func printCalibration(w io.Writer, f *calibrateFlags, r lv.Result) {
	ms := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	fmt.Fprintf(w, "host            %s\n", f.host)
	fmt.Fprintf(w, "test VM         %d MB, %d MB filled, saved image %d MB\n", r.MemoryMB, r.FilledMB, r.SavedMB)
	fmt.Fprintf(w, "boot            %s\n", ms(r.Boot))
	fmt.Fprintf(w, "pause           %s\n", r.PauseTime.Round(time.Microsecond))
	fmt.Fprintf(w, "save            %s  (%.1f MB/s)\n", ms(r.SaveTime), r.SuspendRate)
	fmt.Fprintf(w, "restore         %s  (%.1f MB/s)\n", ms(r.RestoreTime), r.ResumeRate)
	fmt.Fprintf(w, "unpause         %s\n", r.UnpauseTime.Round(time.Microsecond))
	if r.LiveMigrateTo != "" {
		fmt.Fprintf(w, "live migration  %s  (to %s, %.1f MB/s)\n", ms(r.LiveMigration), f.to, float64(r.MemoryMB)/r.LiveMigration.Seconds())
	}
	fmt.Fprintf(w, "\n# bora config (the overhead model, docs/models.md §2):\n")
	fmt.Fprintf(w, "scheduler:\n  overheads:\n")
	fmt.Fprintf(w, "    suspend_rate: %.1f   # MB/s, save of a %d MB VM\n", r.SuspendRate, r.MemoryMB)
	fmt.Fprintf(w, "    resume_rate: %.1f    # MB/s, restore\n", r.ResumeRate)
	fmt.Fprintf(w, "    pause: %s\n", r.Pause.Round(time.Microsecond))
	l := leaseOf4(f, r)
	if f.storage == string(scheduler.StorageLocal) {
		fmt.Fprintf(w, "    storage: local     # each host saves to its own disk: hosts in parallel\n")
	} else {
		fmt.Fprintf(w, "    storage: shared    # every host saves to the same storage: VMs one after the other\n")
	}
	fmt.Fprintf(w, "# a lease of %d VMs of %d MB, one a host: suspend %s, resume %s\n", l.VMs, r.MemoryMB, ms(l.Suspend), ms(l.Resume))
	fmt.Fprintf(w, "# (suspend with storage shared %s, local %s)\n", ms(l.SharedSuspend), ms(l.LocalSuspend))
}
