package federation

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/dispatch"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/sim"
	"github.com/bora-sched/bora/simconfig"
	"github.com/bora-sched/bora/workgen"
	"github.com/bora-sched/bora/workload"
	"github.com/bora-sched/bora/yamlstrict"
)

// File is a federation file (docs/formats.md, "Federation files"): the
// clusters, the gateway and where the requests come from.
type File struct {
	// Name names the federation in the report; the file's base name by
	// default.
	Name string `yaml:"name"`
	// Workload generates the requests (a multi-cluster model of package
	// workgen: das2, gwa-bot): the gateway's external ones and each
	// cluster's local ones, matched by cluster name. Optional when every
	// stream has a trace.
	Workload *Generator `yaml:"workload"`
	Gateway  Gateway    `yaml:"gateway"`
	// Config sets bora configuration keys (dotted, as `bora simulate
	// --set`) for every cluster.
	Config   map[string]string `yaml:"config"`
	Clusters []ClusterSpec     `yaml:"clusters"`

	file  string
	lines map[string]int
}

// Generator is a workload model, its seed and its parameters.
type Generator struct {
	Model  string            `yaml:"model"`
	Seed   uint64            `yaml:"seed"`
	Params map[string]string `yaml:"params"`
}

// Gateway is the gateway: its dispatch policy (docs/models.md §6), the
// seed of pap-rnd's draws, and the external requests' trace (the
// generator's gateway stream when empty).
type Gateway struct {
	Policy string `yaml:"policy"`
	Seed   uint64 `yaml:"seed"`
	Trace  string `yaml:"trace"`
}

// ClusterSpec is one cluster. Hosts, cores, memory and speed default to
// the generated cluster of the same name (its MIPS / 1000 for the
// speed); a cluster not generated must give them.
type ClusterSpec struct {
	Name   string  `yaml:"name"`
	Hosts  int     `yaml:"hosts"`
	Cores  float64 `yaml:"cores"`
	Memory int64   `yaml:"memory"` // MB per host
	// Speed is the hosts' relative speed, for the rate policies only.
	Speed float64 `yaml:"speed"`
	// Cost breaks earliest-finish's ties.
	Cost float64 `yaml:"cost"`
	// Trace holds the local requests (the generated cluster's when
	// empty).
	Trace string `yaml:"trace"`
	// Admission is the cluster's admission policy (admission.policy:
	// accept-all, one-at-a-time, rate, pacp); none when empty.
	Admission string `yaml:"admission"`
	// Set sets configuration keys for this cluster over Config.
	Set map[string]string `yaml:"set"`
}

// FileError is an error in a federation file (Kind ErrFile): the file,
// the line, the key path and the problem.
type FileError = yamlstrict.FileError

// Load reads and checks a federation file.
func Load(path string) (*File, error) { return yamlstrict.LoadFile(path, Parse) }

// Parse reads and checks a federation file's text; file names it in
// errors (and trace paths are relative to its directory). Every error is
// a *FileError wrapping ErrFile.
func Parse(data []byte, file string) (*File, error) {
	f := &File{file: file}
	lines, err := yamlstrict.DecodeFile(data, file, f, ErrFile)
	if err != nil {
		return nil, err
	}
	f.lines = lines
	if f.Name == "" {
		f.Name = baseName(file)
	}
	return f, f.check()
}

func baseName(file string) string {
	b := filepath.Base(file)
	return b[:len(b)-len(filepath.Ext(b))]
}

// bad is an error at path.
func (f *File) bad(path, format string, args ...any) error {
	return &FileError{File: f.file, Line: f.lines[path], Path: path, Msg: fmt.Sprintf(format, args...), Kind: ErrFile}
}

// check validates the decoded file: every error names its key.
func (f *File) check() error {
	var generated []workgen.Cluster
	if g := f.Workload; g != nil {
		cs, err := workgen.Clusters(g.Model)
		if err != nil {
			return f.bad("workload.model", "%v", err)
		}
		if len(cs) == 0 {
			return f.bad("workload.model", "model %s generates one cluster; a federation needs a multi-cluster model (das2, gwa-bot)", g.Model)
		}
		generated = cs
	}
	if f.Gateway.Policy == "" {
		return f.bad("gateway.policy", "missing: name the dispatch policy (rr, lrf, bcf, lrf-rnd, bcf-rnd, pap-rnd, pap-rtdp, earliest-finish)")
	}
	if err := CheckPolicies(f.Gateway.Policy); err != nil {
		return f.bad("gateway.policy", "%v", err)
	}
	if f.Gateway.Trace == "" && f.Workload == nil {
		return f.bad("gateway.trace", "missing: give the external requests' trace, or a workload to generate them")
	}
	if len(f.Clusters) == 0 {
		return f.bad("clusters", "missing: list at least one cluster")
	}
	seen := map[string]int{}
	for i, c := range f.Clusters {
		at := fmt.Sprintf("clusters[%d]", i)
		if c.Name == "" {
			return f.bad(at+".name", "missing")
		}
		if j, dup := seen[c.Name]; dup {
			return f.bad(at+".name", "%q is also clusters[%d]", c.Name, j)
		}
		seen[c.Name] = i
		gen := findCluster(generated, c.Name)
		if gen == nil {
			if c.Trace == "" {
				return f.bad(at+".trace", "missing: cluster %q is not one the workload generates (%s); give its local trace", c.Name, clusterNames(generated))
			}
			for _, k := range []struct {
				key string
				set bool
			}{{"hosts", c.Hosts != 0}, {"speed", c.Speed != 0}} {
				if !k.set {
					return f.bad(at+"."+k.key, "missing: cluster %q is not generated, give its %s", c.Name, k.key)
				}
			}
		}
		switch {
		case c.Hosts < 0:
			return f.bad(at+".hosts", "%d: want at least 1 host", c.Hosts)
		case c.Cores < 0:
			return f.bad(at+".cores", "%v: want a positive number of cores", c.Cores)
		case c.Memory < 0:
			return f.bad(at+".memory", "%d: want a positive number of MB", c.Memory)
		case c.Speed < 0:
			return f.bad(at+".speed", "%v: want a positive relative speed", c.Speed)
		case c.Cost < 0:
			return f.bad(at+".cost", "%v: want a cost >= 0", c.Cost)
		}
	}
	// Every configuration key must take: build each cluster's once.
	for i := range f.Clusters {
		if _, err := f.clusterConfig(i, Overrides{}); err != nil {
			return err
		}
	}
	return nil
}

// CheckPolicies checks a comma list of gateway policies (as --gateway
// takes) and returns an error listing the known ones.
func CheckPolicies(list string) error {
	for _, p := range splitList(list) {
		if _, err := dispatch.Lookup(p); err != nil {
			return err
		}
	}
	return nil
}

// Policies splits a comma list of gateway policies.
func Policies(list string) []dispatch.PolicyName {
	var out []dispatch.PolicyName
	for _, p := range splitList(list) {
		out = append(out, dispatch.PolicyName(p))
	}
	return out
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func findCluster(cs []workgen.Cluster, name string) *workgen.Cluster {
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}

func clusterNames(cs []workgen.Cluster) string {
	if len(cs) == 0 {
		return "no workload"
	}
	var n []string
	for _, c := range cs {
		n = append(n, c.Name)
	}
	return strings.Join(n, ", ")
}

// clusterConfig is cluster i's simulation: o's base configuration (the
// default one), the file's config keys, the cluster's shape, admission
// policy and set keys, then o's Configure.
func (f *File) clusterConfig(i int, o Overrides) (sim.Config, error) {
	c := f.Clusters[i]
	at := fmt.Sprintf("clusters[%d]", i)
	cfg := config.Default()
	if o.Base != nil {
		var err error
		if cfg, err = o.Base(); err != nil {
			return sim.Config{}, err
		}
	}
	set := func(path, key, value string) error {
		if err := cfg.Set(config.FullKey(key), value); err != nil {
			return f.bad(path, "%v", err)
		}
		return nil
	}
	for _, k := range sortedKeys(f.Config) {
		if err := set("config."+k, k, f.Config[k]); err != nil {
			return sim.Config{}, err
		}
	}
	var generated []workgen.Cluster
	if f.Workload != nil {
		generated, _ = workgen.Clusters(f.Workload.Model)
	}
	if g := findCluster(generated, c.Name); g != nil {
		cfg.Cluster.Hosts, cfg.Cluster.CPU, cfg.Cluster.Memory = g.Hosts, g.HostCPU, g.HostMemory
	}
	if c.Hosts > 0 {
		cfg.Cluster.Hosts = c.Hosts
	}
	if c.Cores > 0 {
		cfg.Cluster.CPU = int64(c.Cores*100 + 0.5)
	}
	if c.Memory > 0 {
		cfg.Cluster.Memory = c.Memory
	}
	if c.Admission != "" {
		if err := set(at+".admission", "admission.policy", c.Admission); err != nil {
			return sim.Config{}, err
		}
	}
	for _, k := range sortedKeys(c.Set) {
		if err := set(at+".set."+k, k, c.Set[k]); err != nil {
			return sim.Config{}, err
		}
	}
	if o.Configure != nil {
		if err := o.Configure(&cfg); err != nil {
			return sim.Config{}, err
		}
	}
	if c.Admission != "" {
		if _, err := cfg.Admission.Controller(""); err != nil {
			return sim.Config{}, f.bad(at+".admission", "%v", err)
		}
	}
	sc, err := simconfig.Run(cfg)
	if err != nil {
		return sim.Config{}, f.bad(at, "%v", err)
	}
	if err := sc.Cluster.Validate(); err != nil {
		return sim.Config{}, f.bad(at, "%v", err)
	}
	sc.Name, sc.ClusterSource = c.Name, "federation"
	return sc, nil
}

// Setup reads or generates the requests and builds the run of gateway
// policy (the file's when empty). Trace paths are relative to the file's
// directory.
func (f *File) Setup(policy string) (Setup, error) { return f.SetupWith(policy, Overrides{}) }

// Overrides change a federation file's run, for bora experiment's
// sweeps over it.
type Overrides struct {
	// Seed, when Seeded, replaces the workload's seed and the gateway's.
	Seed   uint64
	Seeded bool
	// Params are workload parameters over the file's.
	Params map[string]string
	// Base is the configuration every cluster starts from (nil: the
	// default configuration).
	Base func() (config.Config, error)
	// Configure, when set, changes every cluster's configuration after
	// the file's keys (config, the cluster's admission and set).
	Configure func(*config.Config) error
}

// SetupWith is Setup with o applied.
func (f *File) SetupWith(policy string, o Overrides) (Setup, error) {
	r, err := f.Requests(o)
	if err != nil {
		return Setup{}, err
	}
	return f.SetupFrom(policy, r, o)
}

// Requests are a federation file's requests, generated and read once
// for every gateway policy run on them (SetupFrom).
type Requests struct {
	w        *workgen.Workload // the generated workload (nil without one)
	seed     uint64            // its seed
	external []scheduler.Request
	local    [][]scheduler.Request // by cluster, nil: the generated cluster's
}

// Requests generates the file's workload with o's seed and parameters
// and reads its traces.
func (f *File) Requests(o Overrides) (*Requests, error) {
	r := &Requests{local: make([][]scheduler.Request, len(f.Clusters))}
	if g := f.Workload; g != nil {
		params := map[string]string{}
		maps.Copy(params, g.Params)
		maps.Copy(params, o.Params)
		r.seed = g.Seed
		if o.Seeded {
			r.seed = o.Seed
		}
		var err error
		if r.w, err = workgen.Generate(g.Model, r.seed, params); err != nil {
			return nil, f.bad("workload", "%v", err)
		}
	} else if len(o.Params) > 0 {
		return nil, f.bad("workload", "missing: workload parameters are set (%s) but the file generates no workload", strings.Join(sortedKeys(o.Params), ", "))
	}
	if f.Gateway.Trace != "" {
		reqs, err := f.readTrace(f.Gateway.Trace, scheduler.External)
		if err != nil {
			return nil, f.bad("gateway.trace", "%v", err)
		}
		r.external = reqs
	} else {
		r.external = r.w.Requests
	}
	for i, c := range f.Clusters {
		if c.Trace == "" {
			continue
		}
		var err error
		if r.local[i], err = f.readTrace(c.Trace, scheduler.Local); err != nil {
			return nil, f.bad(fmt.Sprintf("clusters[%d].trace", i), "%v", err)
		}
	}
	return r, nil
}

// SetupFrom builds the run of gateway policy (the file's when empty) on
// requests r (from Requests with the same o), with o's seed and
// configuration.
func (f *File) SetupFrom(policy string, r *Requests, o Overrides) (Setup, error) {
	if policy == "" {
		policy = f.Gateway.Policy
	}
	s := Setup{Name: policy, Policy: dispatch.PolicyName(policy), Seed: f.Gateway.Seed, External: r.external,
		Options: map[string]string{"federation": f.Name, "gateway.policy": policy}}
	if o.Seeded {
		s.Seed = o.Seed
	}
	for i, c := range f.Clusters {
		sc, err := f.clusterConfig(i, o)
		if err != nil {
			return Setup{}, err
		}
		m := Member{Sim: sc, Speed: c.Speed, Cost: c.Cost}
		var gen *workgen.Cluster
		if r.w != nil {
			gen = findCluster(r.w.Clusters, c.Name)
		}
		if m.Speed == 0 && gen != nil {
			m.Speed = float64(gen.MIPS) / 1000
		}
		if m.Speed == 0 {
			m.Speed = 1
		}
		switch {
		case c.Trace != "":
			m.Local, m.Sim.Trace = r.local[i], c.Trace
		case gen != nil:
			m.Local = gen.Requests
			m.Sim.Trace = fmt.Sprintf("%s seed %d %s", f.Workload.Model, r.seed, c.Name)
		}
		s.Clusters = append(s.Clusters, m)
	}
	return s, nil
}

// readTrace reads a trace relative to the file's directory, its requests
// all of origin o.
func (f *File) readTrace(path string, o scheduler.Origin) ([]scheduler.Request, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(f.file), path)
	}
	opt := workload.DefaultOptions()
	opt.ForceOrigin = o
	t, err := workload.ReadFile(path, opt)
	if err != nil {
		return nil, err
	}
	return t.Requests, nil
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
