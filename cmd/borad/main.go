// Command borad is bora's daemon: the scheduling loop, its state store,
// the driver that enacts its decisions, and the HTTP API.
//
//	borad --config /etc/bora/bora.yaml [--store PATH] [--socket PATH]
//	      [--clock real|scaled|simulated] [--speed N] [--log-level L]
//	      [--strict-restore]
//
// SIGTERM or SIGINT stop it gracefully; SIGHUP reloads the config file
// (a bad file leaves the running config untouched and says why).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/daemon"
)

// flags are the command line.
type flags struct {
	config, store, socket, clock, logLevel, logFormat string
	speed                                             float64
	strictRestore                                     bool
}

func main() {
	f, err := parseFlags(os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		os.Exit(2)
	}
	cfg, err := load(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "borad:", err)
		os.Exit(2)
	}
	if err := run(cfg, f); err != nil {
		fmt.Fprintln(os.Stderr, "borad:", err)
		os.Exit(1)
	}
}

// parseFlags reads the command line. -h or --help prints the usage on
// stdout and returns flag.ErrHelp (borad exits 0); a bad flag prints the
// error and the usage on stderr (borad exits 2).
func parseFlags(args []string, stdout, stderr io.Writer) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("borad", flag.ContinueOnError)
	fs.StringVar(&f.config, "config", "/etc/bora/bora.yaml", "configuration file")
	fs.StringVar(&f.store, "store", "", "state store file (overrides daemon.store)")
	fs.StringVar(&f.socket, "socket", "", "API unix socket (overrides api.socket)")
	fs.StringVar(&f.clock, "clock", "", "real, scaled or simulated (overrides daemon.clock)")
	fs.Float64Var(&f.speed, "speed", 0, "scaled clock: simulated seconds per real second (implies --clock scaled)")
	fs.StringVar(&f.logLevel, "log-level", "", "debug, info, warn or error (overrides daemon.log_level)")
	fs.StringVar(&f.logFormat, "log-format", "", "text or json (overrides daemon.log_format)")
	fs.BoolVar(&f.strictRestore, "strict-restore", false,
		"refuse to start on a stored plan that would put a host over capacity, instead of planning the leases in the way again (sets daemon.strict_restore)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: borad [--config FILE] [flags]\n\n"+
			"bora's daemon. SIGTERM or SIGINT stop it gracefully; SIGHUP reloads the config file.\n"+
			"Check a config file first with: bora config check FILE\n\nflags:\n")
		fs.PrintDefaults()
	}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		fs.Usage()
	case err != nil:
		fs.SetOutput(stderr)
		fmt.Fprintln(stderr, "borad:", err)
		fs.Usage()
	}
	return f, err
}

// load reads the config file and applies the flags.
func load(f flags) (config.Config, error) {
	cfg, err := config.LoadDaemon(f.config)
	if err != nil {
		return cfg, err
	}
	if f.store != "" {
		cfg.Daemon.Store = f.store
	}
	if f.socket != "" {
		cfg.API.Socket = f.socket
	}
	if f.speed > 0 {
		cfg.Daemon.Clock, cfg.Daemon.Speed = "scaled", f.speed
	}
	if f.clock != "" {
		cfg.Daemon.Clock = f.clock
	}
	if f.logLevel != "" {
		cfg.Daemon.LogLevel = f.logLevel
	}
	if f.logFormat != "" {
		cfg.Daemon.LogFormat = f.logFormat
	}
	if f.strictRestore {
		cfg.Daemon.StrictRestore = true
	}
	if err := cfg.ValidateDaemon(); err != nil {
		return cfg, fmt.Errorf("%s with the command-line flags: %w", f.config, err)
	}
	return cfg, nil
}

func run(cfg config.Config, f flags) error {
	log := daemon.NewLogger(cfg.Daemon)
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	d, err := daemon.New(ctx, daemon.Options{Config: cfg, ConfigPath: f.config, Log: log})
	if err != nil {
		return err
	}
	srv, err := daemon.NewAPIServer(d, cfg, log)
	if err != nil {
		d.Close()
		return err
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for range hup {
			next, err := load(f)
			if err != nil {
				log.WithError(err).Error("reload refused: the running configuration is unchanged")
				continue
			}
			d.Reload(next)
		}
	}()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ctx) }()
	err = d.Run(ctx)
	cancel()
	if serr := <-errc; serr != nil && !errors.Is(serr, context.Canceled) {
		err = errors.Join(err, serr)
	}
	return err
}
