package experiment

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/dispatch"
	"github.com/bora-sched/bora/federation"
	"github.com/bora-sched/bora/workgen"
	"github.com/bora-sched/bora/yamlstrict"
)

// Spec is an experiment file (docs/experiments.md, "Experiment files").
type Spec struct {
	// Name names the experiment in its outputs; the file's base name by
	// default.
	Name string `yaml:"name"`
	// Model is the workload generator (workgen.Models()) and Params its
	// fixed parameters.
	Model  string            `yaml:"model"`
	Params map[string]string `yaml:"params"`
	// Federation, instead of Model, names a federation file (docs/formats.md
	// §7, a path relative to the experiment file): its clusters behind
	// its gateway are every run's. Params then set its generator's
	// parameters, the seeds replace its workload's and gateway's seed,
	// and the configuration keys apply to every cluster after the file's.
	Federation string `yaml:"federation"`
	// Config sets bora configuration keys (dotted, as `bora simulate
	// --set`) for every run: the cluster, the scheduler, the energy
	// section.
	Config map[string]string `yaml:"config"`
	// Vary is the one parameter the experiment sweeps.
	Vary Vary `yaml:"vary"`
	// Policies are the configurations compared at every point, each on
	// the same generated workloads (paired by seed).
	Policies []Policy `yaml:"policies"`
	// Seeds is the number of seeds per point, from FirstSeed on.
	Seeds     int    `yaml:"seeds"`
	FirstSeed uint64 `yaml:"first_seed"`
	// Metrics are the report metrics to summarise, by their JSON names
	// (local_rejection_rate, art_s, energy_kwh...).
	Metrics []string `yaml:"metrics"`
	// Compare names two policies, A and B: the paired difference A - B
	// of every metric at every point, with its 95 % confidence interval.
	Compare []string `yaml:"compare"`

	file     string
	lines    map[string]int
	kind     string            // what Vary.Param is: varyModel, varyHosts or varyConfig (check sets it)
	clusters []workgen.Cluster // a multi-cluster model's clusters, without requests (check sets them)
	fed      *federation.File  // the federation file (check loads it)
}

// Vary is the swept parameter: a generator parameter (a name of the
// model's), the number of hosts (hosts), or a configuration key (dotted).
type Vary struct {
	Param  string   `yaml:"param"`
	Values []string `yaml:"values"`
}

// Policy is one configuration compared: a name, the configuration keys
// it sets over the experiment's, and for a multi-cluster model the
// gateway's dispatch policy (docs/models.md §6: rr, lrf, bcf, pap-rnd,
// pap-rtdp, earliest-finish), which runs the clusters behind one gateway
// on one clock (package federation); without it the external requests
// are split round robin and each cluster runs on its own.
type Policy struct {
	Name    string            `yaml:"name"`
	Set     map[string]string `yaml:"set"`
	Gateway string            `yaml:"gateway"`
}

// What the swept parameter is.
const (
	varyModel  = "model"
	varyHosts  = "hosts"
	varyConfig = "config"
)

// ErrSpec is wrapped by every error about an experiment file.
var ErrSpec = errors.New("invalid experiment file")

// SpecError is an error in an experiment file (Kind ErrSpec): the file,
// the line, the key path and the problem.
type SpecError = yamlstrict.FileError

// Load reads and checks an experiment file.
func Load(path string) (*Spec, error) { return yamlstrict.LoadFile(path, Parse) }

// Parse reads and checks an experiment file's text; file names it in
// errors.
func Parse(data []byte, file string) (*Spec, error) {
	s := &Spec{file: file}
	lines, err := yamlstrict.DecodeFile(data, file, s, ErrSpec)
	if err != nil {
		return nil, err
	}
	s.lines = lines
	if s.Name == "" {
		s.Name = baseName(file)
	}
	return s, s.check(file)
}

func baseName(file string) string {
	b := file[strings.LastIndex(file, "/")+1:]
	if i := strings.LastIndex(b, "."); i > 0 {
		b = b[:i]
	}
	return b
}

// check validates the decoded file: every error names its key and line.
func (s *Spec) check(file string) error {
	bad := func(path, format string, args ...any) error {
		return &SpecError{File: file, Line: s.lineOf(path), Path: path, Msg: fmt.Sprintf(format, args...), Kind: ErrSpec}
	}
	params, err := s.workloadParams(file, bad)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, p := range params {
		known[p.Name] = true
	}
	for k := range s.Params {
		if !known[k] {
			return bad("params."+k, "model %s has no parameter %q (it has %s)", s.ModelName(), k, paramNames(params))
		}
	}
	s.kind = s.varyKind(known)
	switch kind := s.kind; {
	case s.Vary.Param == "":
		return bad("vary.param", "missing: name the parameter to sweep")
	case kind == "":
		return bad("vary.param", "%q is neither a parameter of model %s (%s), hosts, nor a dotted configuration key",
			s.Vary.Param, s.ModelName(), paramNames(params))
	case len(s.Vary.Values) == 0:
		return bad("vary.values", "missing: list the values to sweep")
	case kind == varyModel && s.Params[s.Vary.Param] != "":
		return bad("params."+s.Vary.Param, "the swept parameter is also fixed here")
	case kind == varyHosts:
		for i, v := range s.Vary.Values {
			if n, err := strconv.Atoi(v); err != nil || n < 1 {
				return bad(fmt.Sprintf("vary.values[%d]", i), "%q is not a positive number of hosts", v)
			}
		}
	}
	if i := firstDup(s.Vary.Values); i >= 0 {
		return bad(fmt.Sprintf("vary.values[%d]", i), "%q is listed twice", s.Vary.Values[i])
	}
	if len(s.Policies) == 0 {
		return bad("policies", "missing: list at least one policy")
	}
	names := make([]string, len(s.Policies))
	for i, p := range s.Policies {
		at := fmt.Sprintf("policies[%d]", i)
		if p.Name == "" {
			return bad(at+".name", "missing")
		}
		if slices.Contains(names[:i], p.Name) {
			return bad(at+".name", "%q names two policies", p.Name)
		}
		names[i] = p.Name
	}
	if s.Seeds < 2 {
		return bad("seeds", "%d: want at least 2 seeds (a confidence interval needs two samples)", s.Seeds)
	}
	if len(s.Metrics) == 0 {
		return bad("metrics", "missing: list the metrics to summarise (%s)", strings.Join(MetricNames(), ", "))
	}
	for i, m := range s.Metrics {
		if !slices.Contains(MetricNames(), m) {
			return bad(fmt.Sprintf("metrics[%d]", i), "unknown metric %q (known: %s)", m, strings.Join(MetricNames(), ", "))
		}
	}
	if i := firstDup(s.Metrics); i >= 0 {
		return bad(fmt.Sprintf("metrics[%d]", i), "%q is listed twice", s.Metrics[i])
	}
	if err := s.checkClusters(bad); err != nil {
		return err
	}
	if len(s.Compare) != 0 {
		if len(s.Compare) != 2 || s.Compare[0] == s.Compare[1] {
			return bad("compare", "want two different policy names [A, B]")
		}
		for i, c := range s.Compare {
			if !slices.Contains(names, c) {
				return bad(fmt.Sprintf("compare[%d]", i), "no policy is named %q", c)
			}
		}
	}
	return nil
}

// workloadParams are the parameters of the workload's generator: the
// model's, or the federation file's generator's (none when the file
// reads traces only). A federation file is loaded here, its path
// relative to the experiment file's directory.
func (s *Spec) workloadParams(file string, bad func(path, format string, args ...any) error) ([]workgen.Param, error) {
	if s.Federation == "" {
		params, err := workgen.Params(s.Model)
		if err != nil {
			return nil, bad("model", "%v", err)
		}
		return params, nil
	}
	if s.Model != "" {
		return nil, bad("model", "give a model or a federation file, not both (the federation file sets the workload)")
	}
	path := s.Federation
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(file), path)
	}
	f, err := federation.Load(path)
	if err != nil {
		return nil, bad("federation", "%v", err)
	}
	s.fed = f
	if f.Workload == nil {
		return nil, nil
	}
	return workgen.Params(f.Workload.Model)
}

// ModelName names the workload: the model, or the federation file's
// name with its generator.
func (s *Spec) ModelName() string {
	switch {
	case s.fed == nil:
		return s.Model
	case s.fed.Workload == nil:
		return "federation " + s.fed.Name + " (traces)"
	}
	return "federation " + s.fed.Name + " (" + s.fed.Workload.Model + ")"
}

// checkClusters checks what a multi-cluster model (das2, gwa-bot) or a
// federation file needs: its clusters keep their own sizes, and every
// metric has a rule to aggregate it over them (aggregation).
func (s *Spec) checkClusters(bad func(path, format string, args ...any) error) error {
	if s.fed != nil {
		for i, p := range s.Policies {
			if _, err := dispatch.Lookup(cmp.Or(p.Gateway, s.fed.Gateway.Policy)); err != nil {
				return bad(fmt.Sprintf("policies[%d].gateway", i), "%v", err)
			}
		}
		var names []string
		for _, c := range s.fed.Clusters {
			s.clusters = append(s.clusters, workgen.Cluster{Name: c.Name})
			names = append(names, c.Name)
		}
		return s.checkFixedClusters(bad, "the federation file's clusters ("+strings.Join(names, ", ")+")")
	}
	clusters, err := workgen.Clusters(s.Model)
	if err != nil {
		return bad("model", "%v", err)
	}
	if len(clusters) == 0 {
		for i, p := range s.Policies {
			if p.Gateway != "" {
				return bad(fmt.Sprintf("policies[%d].gateway", i), "model %s simulates one cluster: a gateway needs a multi-cluster model (das2, gwa-bot)", s.Model)
			}
		}
		return nil
	}
	for i, p := range s.Policies {
		if p.Gateway != "" {
			if _, err := dispatch.Lookup(p.Gateway); err != nil {
				return bad(fmt.Sprintf("policies[%d].gateway", i), "%v", err)
			}
		}
	}
	s.clusters = clusters
	var sizes []string
	for _, c := range clusters {
		sizes = append(sizes, fmt.Sprintf("%s of %d hosts", c.Name, c.Hosts))
	}
	return s.checkFixedClusters(bad, "its own clusters ("+strings.Join(sizes, ", ")+")")
}

// checkFixedClusters refuses keys of the cluster's shape where the
// workload's clusters (what) are simulated, and metrics without an
// aggregation rule.
func (s *Spec) checkFixedClusters(bad func(path, format string, args ...any) error, what string) error {
	fixed := func(path string) error {
		return bad(path, "model %s simulates %s: the cluster cannot be set", s.ModelName(), what)
	}
	if s.kind == varyHosts || s.kind == varyConfig && isClusterKey(s.Vary.Param) {
		return fixed("vary.param")
	}
	for _, k := range sortedKeys(s.Config) {
		if isClusterKey(k) {
			return fixed("config." + k)
		}
	}
	for i, p := range s.Policies {
		for _, k := range sortedKeys(p.Set) {
			if isClusterKey(k) {
				return fixed(fmt.Sprintf("policies[%d].set.%s", i, k))
			}
		}
	}
	for i, m := range s.Metrics {
		if _, ok := aggregation[m]; !ok {
			return bad(fmt.Sprintf("metrics[%d]", i), "metric %q has no rule to aggregate it over the clusters of model %s (rules for: %s)",
				m, s.ModelName(), aggregationRules())
		}
	}
	return nil
}

// isClusterKey: a configuration key of the simulated cluster's shape.
func isClusterKey(k string) bool { return strings.HasPrefix(config.FullKey(k), "cluster.") }

// varyKind says what the swept parameter is, "" if nothing known.
func (s *Spec) varyKind(modelParams map[string]bool) string {
	switch p := s.Vary.Param; {
	case modelParams[p]:
		return varyModel
	case p == varyHosts || p == "cluster.hosts":
		return varyHosts
	case strings.Contains(p, "."):
		return varyConfig
	}
	return ""
}

func paramNames(ps []workgen.Param) string {
	var n []string
	for _, p := range ps {
		n = append(n, p.Name)
	}
	return strings.Join(n, ", ")
}

func firstDup(v []string) int {
	for i := range v {
		if slices.Contains(v[:i], v[i]) {
			return i
		}
	}
	return -1
}
