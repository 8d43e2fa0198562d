package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"go.yaml.in/yaml/v3"

	"github.com/bora-sched/bora/cluster"
	"github.com/bora-sched/bora/fielderr"
	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/workload"
)

// Config is everything a bora configuration file sets.
//
// Each section is decoded by its yaml tags (fields.go), in the file and
// by Set alike.
type Config struct {
	Scheduler scheduler.Config `yaml:"scheduler"`
	Cluster   cluster.Shape    `yaml:"cluster"`   // the simulated cluster (bora simulate)
	Workload  workload.Options `yaml:"workload"`  // how traces become leases
	Energy    Energy           `yaml:"energy"`    // energy management, simulated and in borad (energy.go)
	Admission Admission        `yaml:"admission"` // admission of external leases, simulated and in borad (admission.go)

	// The daemon's sections (borad); bora simulate ignores them.
	Daemon    Daemon       `yaml:"daemon"`
	API       APIConfig    `yaml:"api"`
	Driver    DriverConfig `yaml:"driver"`
	Hosts     []HostSpec   `yaml:"hosts"`
	Power     PowerConfig  `yaml:"power"`
	Jobs      Jobs         `yaml:"jobs"`
	Emulation Emulation    `yaml:"emulation"`
}

// Default is the configuration with nothing set: the reference values of
// docs/models.md, 144 single-core hosts of 1024 MB (the SDSC Blue Horizon
// experiments), and the trace defaults of docs/formats.md §1 and §4.
func Default() Config {
	c := Config{
		Scheduler: scheduler.DefaultConfig(),
		Cluster:   cluster.Shape{Hosts: 144, CPU: 100, Memory: 1024},
		Workload:  workload.DefaultOptions(),
		Energy:    DefaultEnergy(),
		Admission: DefaultAdmission(),
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
	if err := decodeInto(doc, reflect.ValueOf(&c).Elem(), "", false); err != nil {
		return Config{}, nil, fileError(err, name)
	}
	if err := c.Validate(); err != nil {
		return Config{}, nil, ls.asError(err, name)
	}
	return c, ls, nil
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
	if err := c.Energy.Validate(); err != nil {
		return err
	}
	return c.Admission.Validate()
}
