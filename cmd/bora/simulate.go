package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/bora-sched/bora/admission"
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/sim"
	"github.com/bora-sched/bora/simconfig"
	"github.com/bora-sched/bora/workload"
)

type simulateFlags struct {
	trace, configFile, output, reportDir string
	inject, sets                         []string
	hosts                                int
	hostCPU                              float64
	hostMemory                           int64
	policies, backfillings, energies     string
	admissions                           string
	storage                              string
	suspendRate, resumeRate              float64
	waitingFactor                        float64
	check                                bool
	federation, gateways                 string
	cpuProfile                           string
}

func newSimulateCmd() *cobra.Command {
	f := &simulateFlags{}
	cmd := &cobra.Command{
		Use:   "simulate --trace FILE [flags]",
		Short: "run the scheduler over a trace on a simulated clock and print the metrics",
		Long: `Run the scheduler over a trace (SWF, LWF XML, LWF lines, or bora's JSON/YAML)
on a simulated clock and print the metrics of docs/models.md §7.

A comma-separated --policy, --backfilling, --energy or --admission runs one
simulation per value, in parallel, and prints them side by side. With --energy
the hosts are switched on and off by the energy policy (docs/models.md §5) and
the report adds energy_kwh and violation_rate. With --admission external
leases pass the admission stage first (docs/models.md §4) and the report adds
admission_violation_rate, admission_rejection_rate, admission_threshold_s and
the external rejections by reason.

With --federation FILE, the file's clusters run behind one gateway on the same
simulated clock (docs/models.md §6): the gateway dispatches each external
lease by its policy (--gateway, a comma list for a sweep; the file's
otherwise), and a cluster whose admission refuses it sends it to the next.
The report's metrics are the federation's; its clusters list each cluster's.`,
		Example: `  bora simulate --trace testdata/traces/sdsc-blue-30days.swf \
      --inject testdata/traces/local-work_15-dur_3h-size_2medium.lwf --hosts 512
  bora simulate --trace t.swf --policy MOV,MLIP,MOML -o json --report out/
  bora simulate --trace testdata/traces/sdsc-blue-30days.swf \
      --inject testdata/traces/local-work_15-dur_3h-size_2medium.lwf --hosts 512 \
      --energy always-on,gesp,sesp,pemp
  bora simulate --trace gateway.json --inject C64.json --hosts 64 \
      --admission accept-all,one-at-a-time,rate,pacp
  bora simulate --federation examples/federation.yaml --gateway rr,pap-rnd,pap-rtdp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSimulate(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.trace, "trace", "", "trace file: .swf, .lwf (XML or lines), .json, .yaml (required)")
	fl.StringArrayVar(&f.inject, "inject", nil, "add the leases of this file as local leases (repeatable)")
	fl.StringVar(&f.configFile, "config", "", "bora config file (YAML); flags override it")
	fl.IntVar(&f.hosts, "hosts", 0, "number of simulated hosts (default: the trace's LWF <site>, else config, else 144)")
	fl.Float64Var(&f.hostCPU, "host-cpu", 0, "cores per host (default: the site's, else config, else 1)")
	fl.Int64Var(&f.hostMemory, "host-memory", 0, "MB per host (default: the site's, else config, else 1024)")
	fl.StringVar(&f.policies, "policy", "", "preemption policy NOP|MOV|MLIP|MOML; a comma list runs a sweep")
	fl.StringVar(&f.backfillings, "backfilling", "", "conservative|aggressive|none; a comma list runs a sweep")
	fl.StringVar(&f.energies, "energy", "", "energy policy always-on|gesp|sesp|pemp; a comma list runs a sweep")
	fl.StringVar(&f.admissions, "admission", "", "admission policy accept-all|one-at-a-time|rate|pacp; a comma list runs a sweep")
	fl.Float64Var(&f.waitingFactor, "waiting-factor", 0, "waiting factor alpha of the energy policies (default 5)")
	fl.Float64Var(&f.suspendRate, "suspend-rate", 0, "suspension rate s in MB/s")
	fl.Float64Var(&f.resumeRate, "resume-rate", 0, "resumption rate r in MB/s")
	fl.StringVar(&f.storage, "storage", "", "where suspend images go: shared (a lease's VMs one after the other) or local (each host in parallel); default shared")
	fl.StringArrayVar(&f.sets, "set", nil, "set any config key, e.g. scheduler.suspension=none (repeatable)")
	fl.StringVarP(&f.output, "output", "o", "table", "output: table, json or yaml")
	fl.StringVar(&f.reportDir, "report", "", "write report.json, leases.csv and Gantt/utilisation/power plots (SVG, PNG) here (with --federation: the plots per cluster)")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	fl.BoolVar(&f.check, "check-invariants", true, "check after every decision that no host is over capacity")
	fl.StringVar(&f.federation, "federation", "", "simulate the clusters of this federation file behind their gateway (docs/formats.md)")
	fl.StringVar(&f.gateways, "gateway", "", "gateway policy rr|lrf|bcf|lrf-rnd|bcf-rnd|pap-rnd|pap-rtdp|earliest-finish (with --federation); a comma list runs a sweep")
	return cmd
}

func runSimulate(cmd *cobra.Command, f *simulateFlags) (err error) {
	defer batchGC(os.Getenv)() // batchrun.go
	stop, err := startCPUProfile(f.cpuProfile)
	if err != nil {
		return err
	}
	defer stop(&err)
	if f.federation != "" {
		return runFederation(cmd, f) // federation.go
	}
	if f.gateways != "" {
		return usage("--gateway needs --federation FILE")
	}
	if f.trace == "" {
		return usage("--trace is required (or --federation FILE)")
	}
	if f.output != "table" && f.output != "json" && f.output != "yaml" {
		return usage("-o: unknown output %q (want table, json or yaml)", f.output)
	}
	cfg, opts, fileCluster, err := simulationConfig(cmd, f)
	if err != nil {
		return err
	}
	runs, err := sweep(cfg, f, opts)
	if err != nil {
		return err
	}
	reqs, site, err := loadTraces(f, cfg.Workload)
	if err != nil {
		return usageError{err}
	}
	set := map[string]string{} // the cluster keys given, as the user wrote them
	for i, k := range clusterFields {
		if v, ok := opts[k]; ok {
			set[k] = fmt.Sprintf("--set %s=%s", k, v)
			if fl := cmd.Flags().Lookup(strings.TrimPrefix(clusterFlags[i], "--")); fl.Changed && fl.Value.String() == v {
				set[k] = clusterFlags[i] + " " + v
			}
		}
	}
	shape, source, err := simCluster(cfg, set, fileCluster, site, f.trace, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if err := shape.Validate(); err != nil {
		return usage("%s: site: %v", f.trace, err)
	}
	for i := range runs {
		runs[i].Cluster, runs[i].ClusterSource = shape, source
	}
	if isTerminal(cmd.ErrOrStderr()) {
		p := newProgressLine(cmd.ErrOrStderr(), len(runs), time.Now)
		for i := range runs {
			runs[i].Progress = p.hook(i)
		}
		defer p.clear()
	}
	reports, err := runAll(cmd.Context(), runs, reqs)
	if err != nil {
		return err
	}
	if f.reportDir != "" {
		if err := report.WriteDir(f.reportDir, reports...); err != nil {
			return err
		}
	}
	return writeReports(cmd.OutOrStdout(), f.output, reports)
}

// simulationConfig is the config file with the flags applied over it,
// the settings the flags gave, and whether the file changed the cluster.
func simulationConfig(cmd *cobra.Command, f *simulateFlags) (config.Config, map[string]string, bool, error) {
	cfg := config.Default()
	if f.configFile != "" {
		c, err := config.Load(f.configFile)
		if err != nil {
			return cfg, nil, false, usageError{err}
		}
		cfg = c
	}
	fileCluster := cfg.Cluster != config.Default().Cluster
	opts := map[string]string{}
	set := func(key, value string) error {
		opts[key] = value
		if err := cfg.Set(key, value); err != nil {
			return usageError{err}
		}
		return nil
	}
	flagKeys := []struct{ flag, key string }{
		{"hosts", "cluster.hosts"}, {"host-cpu", "cluster.cpu"}, {"host-memory", "cluster.memory"},
		{"suspend-rate", "scheduler.overheads.suspend_rate"}, {"resume-rate", "scheduler.overheads.resume_rate"},
		{"storage", "scheduler.overheads.storage"},
		{"waiting-factor", "energy.waiting_factor"},
	}
	for _, fk := range flagKeys {
		if fl := cmd.Flags().Lookup(fk.flag); fl.Changed {
			if err := set(fk.key, fl.Value.String()); err != nil {
				return cfg, nil, false, err
			}
		}
	}
	for _, kv := range f.sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return cfg, nil, false, usage("--set %q: want key=value", kv)
		}
		if err := set(config.FullKey(k), v); err != nil {
			return cfg, nil, false, err
		}
	}
	cfg.Scheduler.CheckInvariants = cfg.Scheduler.CheckInvariants || f.check
	opts["check_invariants"] = strconv.FormatBool(cfg.Scheduler.CheckInvariants)
	if err := cfg.Validate(); err != nil {
		return cfg, nil, false, usageError{err}
	}
	cfg.Workload.SuspensionOff = cfg.Workload.SuspensionOff || cfg.Scheduler.Suspension == scheduler.SuspensionNone
	return cfg, opts, fileCluster, nil
}

// loadTraces reads the trace and the injected local leases, and returns
// the trace's site (nil without one; the injected files' sites are not
// used).
func loadTraces(f *simulateFlags, opt workload.Options) ([]scheduler.Request, *workload.Site, error) {
	t, err := workload.ReadFile(f.trace, opt)
	if err != nil {
		return nil, nil, err
	}
	reqs := t.Requests
	for _, path := range f.inject {
		o := opt
		o.ForceOrigin = scheduler.Local
		it, err := workload.ReadFile(path, o)
		if err != nil {
			return nil, nil, err
		}
		reqs = append(reqs, it.Requests...)
	}
	workload.SortByArrival(reqs)
	return reqs, t.Site, nil
}

// sweep expands comma lists of policies, backfilling modes, energy
// policies and admission policies into runs.
func sweep(cfg config.Config, f *simulateFlags, opts map[string]string) ([]sim.Config, error) {
	policies := splitList(f.policies, string(cfg.Scheduler.Policy))
	backfills := splitList(f.backfillings, string(cfg.Scheduler.Backfilling))
	energies := splitList(f.energies, cfg.Energy.Policy)
	admissions := splitList(f.admissions, cfg.Admission.Policy)
	trace := f.trace
	if len(f.inject) > 0 {
		trace += " + " + strings.Join(f.inject, " + ")
	}
	var runs []sim.Config
	for _, p := range policies {
		for _, b := range backfills {
			for _, en := range energies {
				for _, ad := range admissions {
					run, err := sweepRun(cfg, p, b, en, ad, opts)
					if err != nil {
						return nil, err
					}
					run.Trace = trace
					run.Name = runName(run, sweptAxes{len(policies) > 1, len(backfills) > 1, len(energies) > 1, len(admissions) > 1})
					runs = append(runs, run)
				}
			}
		}
	}
	return runs, nil
}

// sweepRun is one run of a sweep: preemption policy p, backfilling b,
// energy policy en ("" none) and admission policy ad ("" none).
func sweepRun(cfg config.Config, p, b, en, ad string, opts map[string]string) (sim.Config, error) {
	pol, err := preempt.ParsePolicy(p)
	if err != nil {
		return sim.Config{}, usageError{fmt.Errorf("preemption.policy: %w", err)}
	}
	bf, err := scheduler.ParseBackfilling(b)
	if err != nil {
		return sim.Config{}, usageError{fmt.Errorf("backfilling: %w", err)}
	}
	cfg.Scheduler.Policy, cfg.Scheduler.Backfilling = pol, bf
	if en != "" {
		cfg.Energy.Policy = strings.ToLower(en)
	}
	if ad != "" {
		name, err := admission.ParsePolicy(ad)
		if err != nil {
			return sim.Config{}, usageError{fmt.Errorf("admission.policy: %w", err)}
		}
		cfg.Admission.Policy = string(name)
	}
	run, err := simconfig.Run(cfg)
	if err != nil {
		return sim.Config{}, usageError{err}
	}
	o := map[string]string{"preemption.policy": string(pol), "backfilling": b}
	if run.Admission != nil {
		o["admission.policy"] = string(run.Admission.Policy)
	}
	if run.Energy.Policy != "" {
		o["energy.policy"] = run.Energy.Policy
		o["energy.waiting_factor"] = strconv.FormatFloat(run.Energy.Params.Alpha, 'g', -1, 64)
	}
	for k, v := range opts {
		o[k] = v
	}
	run.Options = o
	return run, nil
}

// sweptAxes says which settings a sweep has several values of.
type sweptAxes struct{ policies, backfills, energies, admissions bool }

// runName is a run's column: the preemption policy, with the backfilling
// mode, the energy policy and the admission policy of the axes swept;
// just the energy or the admission policy when only that is swept.
func runName(r sim.Config, s sweptAxes) string {
	adm := ""
	if r.Admission != nil {
		adm = string(r.Admission.Policy)
	}
	switch {
	case s.energies && !s.policies && !s.backfills && !s.admissions:
		return r.Energy.Policy
	case s.admissions && !s.policies && !s.backfills && !s.energies:
		return adm
	}
	name := string(r.Scheduler.Policy)
	if s.backfills {
		name += "/" + string(r.Scheduler.Backfilling)
	}
	if s.energies {
		name += "/" + r.Energy.Policy
	}
	if s.admissions {
		name += "/" + adm
	}
	return name
}

func splitList(v, def string) []string {
	if v == "" {
		return []string{def}
	}
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// runAll runs the simulations in parallel, keeping their order. When ctx
// is done (Ctrl-C, SIGTERM) every run stops within a second and the error
// says how far each got.
func runAll(ctx context.Context, runs []sim.Config, reqs []scheduler.Request) ([]*report.Report, error) {
	reports := make([]*report.Report, len(runs))
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			reports[i], errs[i] = sim.RunContext(ctx, runs[i], reqs)
		}(i)
	}
	wg.Wait()
	var failed []error
	for i, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Errorf("run %s: %w", runs[i].Name, err))
		}
	}
	return reports, errors.Join(failed...)
}

func writeReports(w io.Writer, output string, reports []*report.Report) error {
	switch output {
	case "json":
		return report.WriteJSON(w, reports...)
	case "yaml":
		return writeYAML(w, reports)
	}
	return report.WriteTable(w, reports...)
}

// writeYAML writes the JSON report as YAML (same keys).
func writeYAML(w io.Writer, reports []*report.Report) error {
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, reports...); err != nil {
		return err
	}
	var doc any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		return err
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return enc.Close()
}
