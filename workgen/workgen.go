// Package workgen generates synthetic workloads from the models of the
// source experiments (docs/workloads.md): lublin99, das2, gwa-bot and
// local-grid. Every draw comes from one seeded generator per (model,
// seed), so a seed reproduces a workload exactly.
package workgen

import (
	"errors"
	"fmt"
	"slices"

	"github.com/bora-sched/bora/scheduler"
)

// Errors of package workgen, wrapped by the errors the functions return.
var (
	// ErrUnknownModel: the model name is not one of Models().
	ErrUnknownModel = errors.New("unknown workload model")
	// ErrUnknownParam: a parameter the model does not have.
	ErrUnknownParam = errors.New("unknown parameter")
	// ErrBadParam: a parameter value that cannot be parsed or is out of
	// its range.
	ErrBadParam = errors.New("invalid parameter value")
)

// Param is one parameter of a model: its name (as given to --param
// name=value), its default value as text, and what it means.
type Param struct {
	Name    string
	Default string
	Doc     string
}

// Cluster is one cluster of a multi-cluster model with its own local
// requests.
type Cluster struct {
	Name       string
	Hosts      int
	HostCPU    int64 // per host, hundredths of a core
	HostMemory int64 // per host, MB
	MIPS       int   // speed of a host, when the model gives one (das2, gwa-bot)
	Requests   []scheduler.Request
}

// Workload is what a model generates. A single-cluster model (lublin99,
// local-grid) fills Requests with every lease, external and local, in
// arrival order, and sets the cluster it is set up for. A multi-cluster
// model (das2, gwa-bot) puts the gateway's external requests in Requests
// and each cluster's local requests in Clusters.
type Workload struct {
	Model      string
	Seed       uint64
	Params     map[string]string // every parameter, defaults filled in
	Hosts      int               // single-cluster models: the cluster
	HostCPU    int64
	HostMemory int64
	Requests   []scheduler.Request
	Clusters   []Cluster
}

// model is one workload model.
type model struct {
	params   []Param
	generate func(seed uint64, p values) (*Workload, error)
	multi    bool // a multi-cluster model: the clusters of das2Clusters
}

// models holds every model by name; each model's file registers itself.
var models = map[string]model{}

// Models returns the names of the models, sorted.
func Models() []string {
	names := make([]string, 0, len(models))
	for n := range models {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Params returns the parameters of the named model.
func Params(name string) ([]Param, error) {
	m, ok := models[name]
	if !ok {
		return nil, fmt.Errorf("%q (models: %v): %w", name, Models(), ErrUnknownModel)
	}
	return slices.Clone(m.params), nil
}

// Generate draws a workload from the named model with the given seed.
// params overrides the model's defaults by name; an unknown name or a bad
// value is an error that names it.
func Generate(name string, seed uint64, params map[string]string) (*Workload, error) {
	m, ok := models[name]
	if !ok {
		return nil, fmt.Errorf("%q (models: %v): %w", name, Models(), ErrUnknownModel)
	}
	v := values{}
	for _, p := range m.params {
		v[p.Name] = p.Default
	}
	for k, val := range params {
		if _, ok := v[k]; !ok {
			return nil, fmt.Errorf("model %s: %q: %w", name, k, ErrUnknownParam)
		}
		v[k] = val
	}
	w, err := m.generate(seed, v)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	w.Model, w.Seed, w.Params = name, seed, map[string]string(v)
	return w, nil
}

// values are a model's parameters by name, as text.
type values map[string]string
