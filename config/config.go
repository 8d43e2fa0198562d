package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/bora-sched/bora/fielderr"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/sim"
	"github.com/bora-sched/bora/workload"
)

// Config is everything a bora configuration file sets.
type Config struct {
	Scheduler scheduler.Config
	Cluster   sim.Cluster      // the simulated cluster (bora simulate)
	Workload  workload.Options // how traces become leases
	Energy    Energy           // energy management, simulated and in borad (energy.go)

	// The daemon's sections (borad); bora simulate ignores them.
	Daemon    Daemon
	API       APIConfig
	Driver    DriverConfig
	Hosts     []HostSpec
	Power     PowerConfig
	Jobs      Jobs
	Emulation Emulation
}

// Default is the configuration with nothing set: the reference values of
// models.md, 144 single-core hosts of 1024 MB (the SDSC Blue Horizon
// experiments), and the trace defaults of formats.md.
func Default() Config {
	c := Config{
		Scheduler: scheduler.DefaultConfig(),
		Cluster:   sim.Cluster{Hosts: 144, CPU: 100, Memory: 1024},
		Workload:  workload.DefaultOptions(),
		Energy:    DefaultEnergy(),
	}
	c.Daemon, c.API, c.Driver, c.Power, c.Jobs = defaultDaemonSections()
	return c
}

// LoadDaemon reads a configuration file as borad does (and bora config
// check): Load, then the daemon's sections are validated too.
func LoadDaemon(path string) (Config, error) {
	c, ls, err := load(path)
	if err != nil {
		return Config{}, err
	}
	if err := c.validateDaemon(); err != nil {
		return Config{}, ls.asError(err, path)
	}
	if err := c.checkWorkload(path); err != nil {
		return Config{}, ls.asError(err, path)
	}
	return c, nil
}

// checkWorkload reads emulation.workload (relative to the config file) as
// borad will at start.
func (c Config) checkWorkload(configPath string) error {
	p := c.Emulation.Workload
	if p == "" {
		return nil
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(configPath), p)
	}
	if _, err := workload.ReadFile(p, c.Workload); err != nil {
		return fieldErr("emulation.workload", err.Error())
	}
	return nil
}

// ValidateDaemon checks the daemon's sections (after flags changed them).
func (c Config) ValidateDaemon() error { return c.validateDaemon() }

// sections are the top-level keys decoded as structures, by name.
func (c *Config) sections() map[string]any {
	return map[string]any{"daemon": &c.Daemon, "api": &c.API, "driver": &c.Driver, "hosts": &c.Hosts,
		"power": &c.Power, "jobs": &c.Jobs, "emulation": &c.Emulation, "energy": &c.Energy}
}

// Error is a problem with one key of a configuration file.
type Error struct {
	File string
	Line int
	Key  string // dotted path, e.g. scheduler.overheads.suspend_rate
	Err  error
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	return fmt.Sprintf("%s: %s: %v", loc, e.Key, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Load reads and validates a configuration file; on any error nothing of
// it is used.
func Load(path string) (Config, error) {
	c, _, err := load(path)
	return c, err
}

func load(path string) (Config, lines, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, nil, err
	}
	return parse(data, path)
}

// Parse reads a configuration from YAML; name is used in errors. Every key
// is checked: unknown keys, and keys written twice, are errors naming the
// key and its line.
func Parse(data []byte, name string) (Config, error) {
	c, _, err := parse(data, name)
	return c, err
}

// parse is Parse, returning the line of every key too.
func parse(data []byte, name string) (Config, lines, error) {
	c := Default()
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		line, msg := syntaxError(err)
		return Config{}, nil, &Error{File: name, Line: line, Key: "(document)", Err: msg}
	}
	if len(root.Content) == 0 {
		return c, lines{}, nil
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return Config{}, nil, &Error{File: name, Line: doc.Line, Key: "(document)", Err: errors.New("expected a mapping of keys")}
	}
	ls, err := keyLines(doc, name)
	if err != nil {
		return Config{}, nil, err
	}
	if err := c.decode(doc, name); err != nil {
		return Config{}, nil, err
	}
	if err := c.Validate(); err != nil {
		return Config{}, nil, ls.asError(err, name)
	}
	return c, ls, nil
}

// decode applies the document: the structured sections decoded strictly,
// the others key by key through Set.
func (c *Config) decode(doc *yaml.Node, name string) error {
	rest := &yaml.Node{Kind: yaml.MappingNode, Line: doc.Line}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if target, ok := c.sections()[k.Value]; ok {
			if err := decodeStrict(v, target, k.Value, name); err != nil {
				return err
			}
			continue
		}
		rest.Content = append(rest.Content, k, v)
	}
	return c.walk(rest, "", name)
}

// walk applies every leaf of a YAML mapping as a dotted key.
func (c *Config) walk(n *yaml.Node, prefix, file string) error {
	if n.Kind != yaml.MappingNode {
		return &Error{File: file, Line: n.Line, Key: strings.TrimSuffix(prefix, "."), Err: errors.New("expected a mapping of keys")}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := prefix + k.Value
		switch v.Kind {
		case yaml.MappingNode:
			if err := c.walk(v, key+".", file); err != nil {
				return err
			}
		case yaml.ScalarNode:
			if err := c.Set(key, v.Value); err != nil {
				return &Error{File: file, Line: k.Line, Key: key, Err: errors.Unwrap(err)}
			}
		default:
			return &Error{File: file, Line: k.Line, Key: key, Err: errors.New("expected a single value")}
		}
	}
	return nil
}

// Set changes one setting by its dotted key (scheduler.*, cluster.*,
// workload.*, energy.*), as `--set key=value` does.
func (c *Config) Set(key, value string) error {
	wrap := func(err error) error {
		if err == nil {
			return nil
		}
		return fmt.Errorf("%s: %w", key, err)
	}
	if rest, ok := strings.CutPrefix(key, "scheduler."); ok {
		if err := c.Scheduler.Set(rest, value); err != nil {
			if errors.Is(err, scheduler.ErrUnknownSetting) {
				return wrap(fmt.Errorf("%w (see the sample config for the keys)", ErrUnknownKey))
			}
			return wrap(errors.Unwrap(err))
		}
		return nil
	}
	if rest, ok := strings.CutPrefix(key, "energy."); ok {
		return wrap(c.Energy.set(rest, value))
	}
	f, ok := local[key]
	if !ok {
		return wrap(fmt.Errorf("%w (known sections: scheduler, cluster, workload, energy, daemon, api, driver, hosts, power, jobs, emulation; keys: %s)", ErrUnknownKey, strings.Join(localKeys(), ", ")))
	}
	return wrap(f(c, value))
}

var local = map[string]func(*Config, string) error{
	"cluster.hosts": func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", v)
		}
		c.Cluster.Hosts = n
		return nil
	},
	"cluster.cpu":            cores(func(c *Config) *int64 { return &c.Cluster.CPU }),
	"cluster.memory":         megabytes(func(c *Config) *int64 { return &c.Cluster.Memory }),
	"workload.cpu_per_vm":    cores(func(c *Config) *int64 { return &c.Workload.CPUPerVM }),
	"workload.memory_per_vm": megabytes(func(c *Config) *int64 { return &c.Workload.MemoryPerVM }),
	"workload.suspension_off": func(c *Config, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		c.Workload.SuspensionOff = b
		return nil
	},
}

func localKeys() []string {
	keys := make([]string, 0, len(local))
	for k := range local {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// cores reads a number of cores (e.g. 1, 0.5) into hundredths of a core.
func cores(field func(*Config) *int64) func(*Config, string) error {
	return func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			return fmt.Errorf("%q is not a positive number of cores", v)
		}
		*field(c) = int64(f*100 + 0.5)
		return nil
	}
}

func megabytes(field func(*Config) *int64) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not a positive number of MB", v)
		}
		*field(c) = n
		return nil
	}
}

// Validate checks every section.
// Its errors are *fielderr.Error naming the dotted key.
func (c Config) Validate() error {
	if err := c.Scheduler.Validate(); err != nil {
		var fe *fielderr.Error
		if errors.As(err, &fe) {
			return fieldErr("scheduler."+fe.Path, fe.Msg)
		}
		return fieldErr("scheduler", err.Error())
	}
	if c.Cluster.Hosts < 1 {
		return fieldErr("cluster.hosts", fmt.Sprintf("need at least 1, got %d", c.Cluster.Hosts))
	}
	if err := c.Cluster.Validate(); err != nil {
		return fieldErr("cluster", err.Error())
	}
	return c.Energy.Validate()
}
