package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/experiment"
)

type experimentFlags struct {
	outDir, configFile, cpuProfile string
	workers, seeds                 int
}

func newExperimentCmd() *cobra.Command {
	f := &experimentFlags{}
	cmd := &cobra.Command{
		Use:   "experiment FILE.yaml",
		Short: "sweep a parameter over many seeds and policies and draw the figures",
		Long: `Run an experiment file: a workload model with its parameters, one parameter
to sweep, the policies to compare, the number of seeds and the metrics
(docs/experiments.md, "Experiment files"). Every (value, seed) workload runs
under every policy, in parallel on all cores. The tables of mean ± 95 %
confidence interval go to standard output and, with the plots, to the
output directory: results.txt, results.csv, results.json, METRIC.svg and
METRIC.png, with each run's wall-clock time in timings.csv. The same file
gives the same numbers.`,
		Example: `  bora experiment examples/experiments/ch3-local-share.yaml
  bora experiment my.yaml -o out/my --seeds 3 --workers 2`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runExperiment(cmd, f, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.outDir, "output", "o", "", "directory for the results and plots (default experiments/NAME)")
	fl.StringVar(&f.configFile, "config", "", "bora config file (YAML) the runs start from")
	fl.IntVar(&f.workers, "workers", 0, "simulations at once (default: one per core)")
	fl.IntVar(&f.seeds, "seeds", 0, "override the file's number of seeds (at least 2)")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the sweep to this file (go tool pprof)")
	return cmd
}

func runExperiment(cmd *cobra.Command, f *experimentFlags, file string) (err error) {
	defer batchGC(os.Getenv)() // batchrun.go
	spec, err := experiment.Load(file)
	if err != nil {
		return usageError{err}
	}
	if cmd.Flags().Changed("seeds") {
		if f.seeds < 2 {
			return usage("--seeds %d: want at least 2 (a confidence interval needs two samples)", f.seeds)
		}
		spec.Seeds = f.seeds
	}
	if f.workers < 0 {
		return usage("--workers %d: want a positive number (0: one per core)", f.workers)
	}
	base := func() (config.Config, error) { return config.Default(), nil }
	if f.configFile != "" {
		if _, err := config.Load(f.configFile); err != nil {
			return usageError{err}
		}
		base = func() (config.Config, error) { return config.Load(f.configFile) }
	}
	dir := f.outDir
	if dir == "" {
		dir = filepath.Join("experiments", spec.Name)
	}
	opts := experiment.Options{Base: base, Workers: f.workers}
	stop, err := startCPUProfile(f.cpuProfile) // batchrun.go
	if err != nil {
		return err
	}
	defer stop(&err)
	bar := &progressBar{w: cmd.ErrOrStderr(), start: time.Now(), now: time.Now, tty: isTerminal(cmd.ErrOrStderr())}
	opts.Progress = bar.update
	defer bar.clear()
	res, err := experiment.Run(cmd.Context(), spec, opts)
	if err != nil {
		var se *experiment.SpecError
		if errors.As(err, &se) {
			return usageError{err}
		}
		return err
	}
	files, err := experiment.WriteDir(dir, res)
	if err != nil {
		return err
	}
	if err := experiment.WriteText(cmd.OutOrStdout(), res); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", strings.Join(files, ", "))
	fmt.Fprintln(cmd.ErrOrStderr(), timingLine(res, processCPU))
	return nil
}

// timingLine says what the sweep cost: its runs, wall-clock time and
// workers, the process's CPU time where cpu can tell it, and the run
// that took the longest (every run's time is in timings.csv).
func timingLine(r *experiment.Result, cpu func() (user, sys time.Duration, ok bool)) string {
	round := func(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }
	line := fmt.Sprintf("bora experiment: %d runs in %s on %d workers", r.Runs, round(r.Elapsed), r.Workers)
	if user, sys, ok := cpu(); ok {
		line += fmt.Sprintf(", %.1f s of CPU (%.1f user, %.1f system)", (user + sys).Seconds(), user.Seconds(), sys.Seconds())
	}
	if p, q, k, d := r.Slowest(); d > 0 {
		s := r.Spec
		line += fmt.Sprintf("; the longest run: %s=%s, seed %d, %s, %s", s.Vary.Param, s.Vary.Values[p], r.Seeds[k], s.Policies[q].Name, round(d))
	}
	return line
}

// progressBar is `bora experiment`'s progress on standard error: on a
// terminal, a bar of the simulations done rewritten in place, with the
// time left estimated from them; elsewhere (a log file, nohup), the same
// text as a line at each tenth of the runs.
type progressBar struct {
	w       io.Writer
	now     func() time.Time
	start   time.Time
	tty     bool
	mu      sync.Mutex
	written bool
	tenth   int // the last tenth logged, off a terminal
}

const barWidth = 30

func (b *progressBar) update(done, total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	line := formatBar(done, total, b.now().Sub(b.start))
	if b.tty {
		b.written = true
		fmt.Fprint(b.w, "\r\x1b[K"+line)
		return
	}
	if t := 10 * done / max(total, 1); t > b.tenth {
		b.tenth = t
		fmt.Fprintln(b.w, "bora experiment: "+line)
	}
}

// formatBar is "[=========>         ] 12/40 runs · about 1m10s left".
func formatBar(done, total int, elapsed time.Duration) string {
	if total <= 0 {
		return ""
	}
	n := barWidth * done / total
	bar := strings.Repeat("=", n)
	if n < barWidth {
		bar += ">" + strings.Repeat(" ", barWidth-n-1)
	}
	s := fmt.Sprintf("[%s] %d/%d runs", bar, done, total)
	if done > 0 && done < total {
		left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
		s += " · about " + left.Round(time.Second).String() + " left"
	}
	return s
}

func (b *progressBar) clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tty && b.written {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}
