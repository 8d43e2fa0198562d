package experiment

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/federation"
	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/sim"
	"github.com/bora-sched/bora/simconfig"
	"github.com/bora-sched/bora/workgen"
)

// Options are how an experiment is run, as opposed to what it measures.
type Options struct {
	// Base returns the configuration every run starts from (a new value
	// each call, since runs change it in parallel); nil: config.Default.
	Base func() (config.Config, error)
	// Workers is how many simulations run at once; 0: one per core.
	Workers int
	// Progress, when set, is called after each simulation with the runs
	// done and the total (from the workers' goroutines, one at a time).
	Progress func(done, total int)
	// Now is the clock the runs are timed with (Result.Wall), read by
	// the workers at once (it must allow that); nil: time.Now.
	Now func() time.Time
}

// Result holds every sample of an experiment and their summaries. The
// indices are [point][policy][metric], point i being Spec.Vary.Values[i],
// and Samples' last index the seed (Seeds[k]).
type Result struct {
	Spec    *Spec
	Seeds   []uint64
	Samples [][][][]float64
	Summary [][][]Summary
	// Paired is [point][metric]: the differences Compare[0] - Compare[1]
	// seed by seed; nil without Compare.
	Paired [][]Summary
	Runs   int // runs: (point, policy, seed) triples, one simulation per cluster each
	// Clusters names the clusters of a multi-cluster model (nil
	// otherwise), and ClusterSamples holds each cluster's own value of
	// every sample, [point][policy][metric][cluster][seed]: Samples holds
	// their aggregate (aggregation).
	Clusters       []string
	ClusterSamples [][][][][]float64
	// Wall is each run's wall-clock time, [point][policy][seed] (all its
	// clusters' for a multi-cluster model), and Elapsed the whole
	// experiment's. They depend on the machine and on what else ran, and
	// are kept out of the results (WriteTimings).
	Wall    [][][]time.Duration
	Elapsed time.Duration
	Workers int // the simulations run at once
	now     func() time.Time
}

// Run runs every (point, seed) workload under every policy, in parallel,
// and summarises the metrics. The numbers depend only on the spec and
// the base configuration, not on the order the runs finish in.
func Run(ctx context.Context, s *Spec, o Options) (*Result, error) {
	if o.Base == nil {
		o.Base = defaultBase
	}
	if err := s.CheckConfigs(o.Base); err != nil {
		return nil, err
	}
	np, nq, nm := len(s.Vary.Values), len(s.Policies), len(s.Metrics)
	r := &Result{Spec: s, now: o.Now}
	if r.now == nil {
		r.now = time.Now
	}
	begun := r.now()
	for k := range s.Seeds {
		r.Seeds = append(r.Seeds, s.FirstSeed+uint64(k))
	}
	r.Samples = make([][][][]float64, np)
	r.Wall = make([][][]time.Duration, np)
	for p := range r.Samples {
		r.Samples[p] = make([][][]float64, nq)
		r.Wall[p] = make([][]time.Duration, nq)
		for q := range r.Samples[p] {
			r.Wall[p][q] = make([]time.Duration, s.Seeds)
			r.Samples[p][q] = make([][]float64, nm)
			for m := range r.Samples[p][q] {
				r.Samples[p][q][m] = make([]float64, s.Seeds)
			}
		}
	}
	r.allocClusters()
	type job struct{ p, k int }
	jobs := make(chan job)
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		done     atomic.Int64
	)
	total := np * s.Seeds * nq
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if err := r.runJob(ctx, s, o.Base, j.p, j.k); err != nil {
					fail(err)
					continue
				}
				n := int(done.Add(int64(nq)))
				if o.Progress != nil {
					mu.Lock()
					o.Progress(n, total)
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for p := range np {
		for k := range s.Seeds {
			select {
			case jobs <- job{p, k}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.Runs, r.Workers = total, workers
	r.summarise()
	r.Elapsed = r.now().Sub(begun)
	return r, nil
}

func defaultBase() (config.Config, error) { return config.Default(), nil }

// CheckConfigs builds the configuration of every point and policy from
// base (nil: the default configuration) without running anything, so
// that a bad key or value is refused, with its line, before the first
// simulation starts.
func (s *Spec) CheckConfigs(base func() (config.Config, error)) error {
	if base == nil {
		base = defaultBase
	}
	if s.fed != nil {
		for p := range s.Vary.Values {
			reqs, err := s.fedRequests(base, p, s.FirstSeed)
			if err != nil {
				return err
			}
			for q := range s.Policies {
				if _, err := s.federationSetup(base, p, q, s.FirstSeed, reqs); err != nil {
					return err
				}
			}
		}
		return nil
	}
	shapes := []*shape{nil}
	if len(s.clusters) > 0 {
		shapes = shapes[:0]
		for _, c := range s.clusters {
			shapes = append(shapes, clusterShape(c))
		}
	}
	for p := range s.Vary.Values {
		for q := range s.Policies {
			for _, sh := range shapes {
				if _, err := s.runConfig(base, p, q, sh); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// shape is the simulated cluster a workload sets: hosts of CPU
// (hundredths of a core) and memory (MB).
type shape struct {
	hosts       int
	cpu, memory int64
}

func clusterShape(c workgen.Cluster) *shape { return &shape{c.Hosts, c.HostCPU, c.HostMemory} }

// workloadShape is the cluster a single-cluster workload is set up for,
// nil when it sets none.
func workloadShape(w *workgen.Workload) *shape {
	if w.Hosts == 0 {
		return nil
	}
	return &shape{w.Hosts, w.HostCPU, w.HostMemory}
}

// runJob generates point p's workload for seed k and runs every policy
// on it.
func (r *Result) runJob(ctx context.Context, s *Spec, base func() (config.Config, error), p, k int) error {
	if s.fed != nil {
		return r.runClusters(ctx, s, base, p, k, nil)
	}
	w, err := s.generate(p, r.Seeds[k])
	if err != nil {
		return err
	}
	if len(w.Clusters) > 0 {
		return r.runClusters(ctx, s, base, p, k, w)
	}
	for q := range s.Policies {
		sc, err := s.runConfig(base, p, q, workloadShape(w))
		if err != nil {
			return err
		}
		t0 := r.now()
		rep, err := sim.RunContext(ctx, sc, w.Requests)
		r.Wall[p][q][k] = r.now().Sub(t0)
		if err != nil {
			return fmt.Errorf("%s=%s, seed %d, policy %s: %w", s.Vary.Param, s.Vary.Values[p], r.Seeds[k], s.Policies[q].Name, err)
		}
		vals := metricValues(rep.Metrics)
		for m, name := range s.Metrics {
			v, ok := vals[name]
			if !ok {
				return fmt.Errorf("policy %s: metric %s: the run did not measure it (energy_kwh and violation_rate need energy.policy)", s.Policies[q].Name, name)
			}
			r.Samples[p][q][m][k] = v
		}
	}
	return nil
}

// generate draws point p's workload for seed.
func (s *Spec) generate(p int, seed uint64) (*workgen.Workload, error) {
	params := map[string]string{}
	for k, v := range s.Params {
		params[k] = v
	}
	if s.isModelParam() {
		params[s.Vary.Param] = s.Vary.Values[p]
	}
	w, err := workgen.Generate(s.Model, seed, params)
	if err != nil {
		// The model's error names the parameter as name=value.
		path := "params"
		for k := range s.Params {
			if strings.Contains(err.Error(), k+"=") {
				path = "params." + k
			}
		}
		if s.isModelParam() && strings.Contains(err.Error(), s.Vary.Param+"=") {
			path = fmt.Sprintf("vary.values[%d]", p)
		}
		return nil, &SpecError{File: s.file, Line: s.lineOf(path), Path: path, Msg: err.Error()}
	}
	return w, nil
}

func (s *Spec) isModelParam() bool { return s.kind == varyModel }

// runConfig is the simulator's configuration for point p and policy q:
// the base, the workload's cluster (sh; nil: the base's), the
// experiment's config keys, the swept value, the policy's keys.
func (s *Spec) runConfig(base func() (config.Config, error), p, q int, sh *shape) (sim.Config, error) {
	cfg, err := base()
	if err != nil {
		return sim.Config{}, err
	}
	if sh != nil {
		cfg.Cluster.Hosts, cfg.Cluster.CPU, cfg.Cluster.Memory = sh.hosts, sh.cpu, sh.memory
	}
	if err := s.configure(&cfg, p, q); err != nil {
		return sim.Config{}, err
	}
	sc, err := simconfig.Run(cfg)
	if err != nil {
		path := fmt.Sprintf("policies[%d]", q)
		return sim.Config{}, &SpecError{File: s.file, Line: s.lineOf(path), Path: path, Msg: err.Error()}
	}
	if err := sc.Cluster.Validate(); err != nil {
		return sim.Config{}, &SpecError{File: s.file, Path: "cluster", Msg: err.Error()}
	}
	sc.Name = s.Policies[q].Name
	sc.Trace = fmt.Sprintf("%s %s=%s", s.Model, s.Vary.Param, s.Vary.Values[p])
	return sc, nil
}

// configure sets on cfg the experiment's config keys, point p's swept
// value (unless it is a workload parameter) and policy q's keys; an
// error names the key's path and line in the experiment file.
func (s *Spec) configure(cfg *config.Config, p, q int) error {
	set := func(path, key, value string) error {
		if err := cfg.Set(config.FullKey(key), value); err != nil {
			return &SpecError{File: s.file, Line: s.lineOf(path), Path: path, Msg: err.Error(), Kind: ErrSpec}
		}
		return nil
	}
	for _, k := range sortedKeys(s.Config) {
		if err := set("config."+k, k, s.Config[k]); err != nil {
			return err
		}
	}
	if !s.isModelParam() {
		key := s.Vary.Param
		if key == varyHosts {
			key = "cluster.hosts"
		}
		if err := set(fmt.Sprintf("vary.values[%d]", p), key, s.Vary.Values[p]); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(s.Policies[q].Set) {
		if err := set(fmt.Sprintf("policies[%d].set.%s", q, k), k, s.Policies[q].Set[k]); err != nil {
			return err
		}
	}
	return nil
}

// fedOverrides are the federation file's overrides for point p, policy
// q and seed: the seed for the workload and the gateway, the parameters
// over the file's, the configuration keys over every cluster's.
func (s *Spec) fedOverrides(base func() (config.Config, error), p, q int, seed uint64) federation.Overrides {
	o := federation.Overrides{Seed: seed, Seeded: true, Base: base, Params: map[string]string{},
		Configure: func(cfg *config.Config) error { return s.configure(cfg, p, q) }}
	maps.Copy(o.Params, s.Params)
	if s.isModelParam() {
		o.Params[s.Vary.Param] = s.Vary.Values[p]
	}
	return o
}

// federationSetup is the federation file's run for point p, policy q
// and seed on reqs, the file's requests for p and seed (the policy's
// gateway, the file's when empty).
func (s *Spec) federationSetup(base func() (config.Config, error), p, q int, seed uint64, reqs *federation.Requests) (federation.Setup, error) {
	setup, err := s.fed.SetupFrom(s.Policies[q].Gateway, reqs, s.fedOverrides(base, p, q, seed))
	if err != nil {
		return federation.Setup{}, err
	}
	setup.Name = s.Policies[q].Name
	return setup, nil
}

// fedRequests are the federation file's requests for point p and seed,
// the same for every policy.
func (s *Spec) fedRequests(base func() (config.Config, error), p int, seed uint64) (*federation.Requests, error) {
	return s.fed.Requests(s.fedOverrides(base, p, 0, seed))
}

// summarise fills Summary and Paired from the samples.
func (r *Result) summarise() {
	s := r.Spec
	r.Summary = make([][][]Summary, len(r.Samples))
	for p := range r.Samples {
		r.Summary[p] = make([][]Summary, len(s.Policies))
		for q := range r.Samples[p] {
			r.Summary[p][q] = make([]Summary, len(s.Metrics))
			for m := range s.Metrics {
				r.Summary[p][q][m] = Summarize(r.Samples[p][q][m])
			}
		}
	}
	if len(s.Compare) != 2 {
		return
	}
	a, b := s.policyIndex(s.Compare[0]), s.policyIndex(s.Compare[1])
	r.Paired = make([][]Summary, len(r.Samples))
	for p := range r.Samples {
		r.Paired[p] = make([]Summary, len(s.Metrics))
		for m := range s.Metrics {
			r.Paired[p][m] = Paired(r.Samples[p][a][m], r.Samples[p][b][m])
		}
	}
}

func (s *Spec) policyIndex(name string) int {
	return slices.IndexFunc(s.Policies, func(p Policy) bool { return p.Name == name })
}

// MetricNames are the metrics an experiment can summarise: the numeric
// fields of a simulation report's metrics, by their JSON names, except
// the wall time (which would make results depend on the machine).
func MetricNames() []string {
	zero := 0.0
	names := make([]string, 0, 20)
	for k := range metricValues(report.Metrics{EnergyKWh: &zero, ViolationRate: &zero,
		AdmissionViolationRate: &zero, AdmissionRejectionRate: &zero, AdmissionThresholdS: &zero}) {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// metricValues are the numeric metrics of a report by JSON name (a
// nil pointer, a metric the run did not model, is left out).
func metricValues(m report.Metrics) map[string]float64 {
	out := map[string]float64{}
	v := reflect.ValueOf(m)
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		f := v.Field(i)
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				continue
			}
			f = f.Elem()
		}
		switch {
		case name == "wall_s" || name == "" || name == "-":
		case f.CanFloat():
			out[name] = f.Float()
		case f.CanInt():
			out[name] = float64(f.Int())
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// lineOf is the line of a key path in the file, or of its nearest
// enclosing key.
func (s *Spec) lineOf(path string) int {
	for p := path; p != ""; {
		if l, ok := s.lines[p]; ok {
			return l
		}
		i := lastSep(p)
		if i < 0 {
			return 0
		}
		p = p[:i]
	}
	return 0
}

func lastSep(p string) int {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '.' || p[i] == '[' {
			return i
		}
	}
	return -1
}
