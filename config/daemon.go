package config

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/bora-sched/bora/drivers/libvirt/libvirtcfg"
	"github.com/bora-sched/bora/drivers/opennebula/onecfg"
	"github.com/bora-sched/bora/drivers/power/powercmd"
	"github.com/bora-sched/bora/fielderr"
)

// Daemon is how borad runs: its store, clock, logs and operation bounds.
type Daemon struct {
	Store string `yaml:"store"` // bbolt file
	// Clock is real, scaled (real time times Speed) or simulated (jumps
	// to the next event when nothing else is due).
	Clock string  `yaml:"clock"`
	Speed float64 `yaml:"speed"`
	// Start is where a scaled or simulated clock starts on a new store
	// (RFC 3339); empty: the wall time.
	Start           string        `yaml:"start"`
	LogFormat       string        `yaml:"log_format"` // text | json
	LogLevel        string        `yaml:"log_level"`  // debug | info | warn | error
	OpTimeout       time.Duration `yaml:"op_timeout"` // bound of one driver operation
	OpRetries       int           `yaml:"op_retries"` // retries of a failed operation before the lease fails
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	ShutdownGrace   time.Duration `yaml:"shutdown_grace"` // guests' time to shut down before they are destroyed
	// StrictRestore refuses to start on a stored state that would put a
	// host over capacity, instead of planning the leases in the way again
	// (borad --strict-restore).
	StrictRestore bool `yaml:"strict_restore"`
}

// APIConfig is where and to whom the HTTP API answers.
type APIConfig struct {
	Socket      string   `yaml:"socket"`
	SocketMode  string   `yaml:"socket_mode"` // octal, e.g. "0660"
	SocketGroup string   `yaml:"socket_group"`
	TCP         string   `yaml:"tcp"` // host:port; empty: no TCP listener
	TLSCert     string   `yaml:"tls_cert"`
	TLSKey      string   `yaml:"tls_key"`
	InsecureTCP bool     `yaml:"insecure_tcp"` // TCP without TLS (tests only)
	Admins      []string `yaml:"admins"`       // users with the admin role on the socket (root always is)
	Tokens      []Token  `yaml:"tokens"`
	MaxBody     int64    `yaml:"max_body"` // bytes
	// PrivateData, like Slurm's PrivateData, shows non-admins the other
	// users' leases in the schedule and the host list only as "busy" (no
	// id, name or owner). Off by default.
	PrivateData bool `yaml:"private_data"`
}

// Token is a bearer token and whom it authenticates.
type Token struct {
	Token    string `yaml:"token"`
	User     string `yaml:"user"`
	Admin    bool   `yaml:"admin"`
	External bool   `yaml:"external"` // may submit external leases (a gateway)
}

// HostSpec is a host of the cluster. For the fake driver it is the whole
// host; for libvirt, URI says where its libvirtd is, and CPU/Memory
// override what libvirt reports (0: use libvirt's).
type HostSpec struct {
	Name   string  `yaml:"name"`
	CPU    float64 `yaml:"cpu"`    // cores
	Memory int64   `yaml:"memory"` // MB
	URI    string  `yaml:"uri"`
	// What power.on, power.off and power.status may use ({{.Address}},
	// {{.MAC}}, {{.BMC}}): e.g. wake-on-LAN to the MAC and ssh to the
	// address, or ipmitool to the BMC.
	Address string `yaml:"address"`
	MAC     string `yaml:"mac"`
	BMC     string `yaml:"bmc"`
}

// DriverConfig chooses and configures the VM driver.
type DriverConfig struct {
	Name       string            `yaml:"name"` // fake | libvirt | opennebula
	Fake       FakeConfig        `yaml:"fake"`
	Libvirt    libvirtcfg.Config `yaml:"libvirt"`
	OpenNebula onecfg.Config     `yaml:"opennebula"`
}

// FakeConfig is the emulation driver's.
type FakeConfig struct {
	// StateFile keeps the emulated VMs across daemon restarts, as real
	// VMs outlive borad; empty: beside the store.
	StateFile string        `yaml:"state_file"`
	Boot      time.Duration `yaml:"boot"` // 0: the enactment overhead
	Faults    []Fault       `yaml:"faults"`
}

// Fault is one injected failure of the fake driver.
type Fault struct {
	Op    string        `yaml:"op"` // start|suspend|resume|migrate|live-migrate|stop|shutdown|host-loss
	Lease uint64        `yaml:"lease"`
	Host  string        `yaml:"host"`
	Times int           `yaml:"times"` // 0: every time
	Fail  string        `yaml:"fail"`  // the error the operation fails with
	Slow  float64       `yaml:"slow"`  // > 1: the operation takes this many times longer
	After time.Duration `yaml:"after"` // host-loss: when
}

// PowerConfig chooses how hosts are switched on and off.
type PowerConfig struct {
	Driver   string        `yaml:"driver"` // none | fake | command
	Boot     time.Duration `yaml:"boot"`
	Shutdown time.Duration `yaml:"shutdown"`
	On       string        `yaml:"on"`  // command templates
	Off      string        `yaml:"off"` // (fields: .Name .Address .MAC .BMC)
	Status   string        `yaml:"status"`
	Timeout  time.Duration `yaml:"timeout"`
	// Faults are failures the fake power driver injects (for tests and
	// drills): a boot or a switch-off that fails or is slow.
	Faults []PowerFault `yaml:"faults"`
}

// PowerFault is one injected failure of the fake power driver.
type PowerFault struct {
	Op    string  `yaml:"op"`    // on | off
	Host  string  `yaml:"host"`  // "" = every host
	Times int     `yaml:"times"` // 0: every time
	Fail  string  `yaml:"fail"`  // the error the switch fails with
	Slow  float64 `yaml:"slow"`  // > 1: the switch takes this many times longer
}

// Jobs are the daemon's periodic jobs, as cron schedules ("" = off).
type Jobs struct {
	Accounting          string        `yaml:"accounting"`
	AccountingRetention time.Duration `yaml:"accounting_retention"`
	Compaction          string        `yaml:"compaction"`
	// LeaseRetention is how long leases that are over stay in the store
	// (and in `bora lease list`); the compaction job drops older ones.
	// 0 keeps them forever.
	LeaseRetention time.Duration `yaml:"lease_retention"`
	// Snapshot writes a checked copy of the store into a snapshots
	// directory next to it; SnapshotKeep is how many are kept (the
	// newest). `bora store restore` puts one back.
	Snapshot     string `yaml:"snapshot"`
	SnapshotKeep int    `yaml:"snapshot_keep"`
}

// Emulation feeds a workload to the daemon: each request is submitted at
// its arrival time after the daemon starts (for demos and CI).
type Emulation struct {
	Workload string `yaml:"workload"` // a trace file (docs/formats.md); relative to the config file
	User     string `yaml:"user"`     // whose leases they are
}

// CronParser reads the schedules of jobs.* and energy.schedule (here and
// in the daemon, which runs the jobs on it): five
// fields, or a descriptor (@hourly, @every 5m).
var CronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// DefaultDaemon, DefaultAPI... are the values of keys left out.
func defaultDaemonSections() (Daemon, APIConfig, DriverConfig, PowerConfig, Jobs) {
	return Daemon{Store: "/var/lib/bora/bora.db", Clock: "real", Speed: 1, LogFormat: "text", LogLevel: "info",
			OpTimeout: 10 * time.Minute, OpRetries: 2, ShutdownTimeout: 30 * time.Second, ShutdownGrace: 30 * time.Second},
		APIConfig{Socket: "/run/bora/bora.sock", SocketMode: "0660", MaxBody: 1 << 20},
		DriverConfig{Name: "fake", OpenNebula: onecfg.DefaultConfig()},
		PowerConfig{Driver: "none", Timeout: 2 * time.Minute},
		Jobs{Accounting: "@every 1m", AccountingRetention: 30 * 24 * time.Hour, Compaction: "@daily",
			LeaseRetention: 90 * 24 * time.Hour, Snapshot: "@hourly", SnapshotKeep: 24}
}

// validateDaemon checks the daemon's sections and names the key at fault.
func (c Config) validateDaemon() error {
	d := c.Daemon
	switch {
	case d.Store == "":
		return fieldErr("daemon.store", "must name a file")
	case d.Clock != "real" && d.Clock != "scaled" && d.Clock != "simulated":
		return fieldErr("daemon.clock", fmt.Sprintf("%q: must be real, scaled or simulated", d.Clock))
	case d.Clock == "scaled" && !(d.Speed > 0):
		return fieldErr("daemon.speed", "must be positive with a scaled clock", "daemon.clock")
	case d.LogFormat != "text" && d.LogFormat != "json":
		return fieldErr("daemon.log_format", fmt.Sprintf("%q: must be text or json", d.LogFormat))
	case d.OpTimeout <= 0:
		return fieldErr("daemon.op_timeout", "must be positive")
	case d.OpRetries < 0:
		return fieldErr("daemon.op_retries", "must not be negative")
	}
	if d.Start != "" {
		if _, err := time.Parse(time.RFC3339, d.Start); err != nil {
			return fieldErr("daemon.start", fmt.Sprintf("%q is not an RFC 3339 time", d.Start))
		}
	}
	switch d.LogLevel {
	case "debug", "info", "warn", "warning", "error":
	default:
		return fieldErr("daemon.log_level", fmt.Sprintf("%q: must be debug, info, warn or error", d.LogLevel))
	}
	if err := c.validateAPI(); err != nil {
		return err
	}
	if err := c.validateHosts(); err != nil {
		return err
	}
	return c.validateRest()
}

func (c Config) validateAPI() error {
	a := c.API
	if a.Socket == "" && a.TCP == "" {
		return fieldErr("api.socket", "need a socket or a tcp listener")
	}
	if _, err := a.Mode(); err != nil {
		return fieldErr("api.socket_mode", err.Error())
	}
	if a.TCP != "" && !a.InsecureTCP && (a.TLSCert == "" || a.TLSKey == "") {
		return fieldErr("api.tls_cert", "a tcp listener needs tls_cert and tls_key (or insecure_tcp for tests)", "api.tcp")
	}
	if a.MaxBody < 1024 {
		return fieldErr("api.max_body", "must be at least 1024 bytes")
	}
	seen := map[string]bool{}
	for i, t := range a.Tokens {
		key := fmt.Sprintf("api.tokens[%d]", i)
		switch {
		case len(t.Token) < 16:
			return fieldErr(key+".token", "must be at least 16 characters")
		case t.User == "":
			return fieldErr(key+".user", "must name the user")
		case seen[t.Token]:
			return fieldErr(key+".token", "used twice")
		}
		seen[t.Token] = true
	}
	return nil
}

// Mode is the socket's file mode.
func (a APIConfig) Mode() (os.FileMode, error) {
	m, err := strconv.ParseUint(a.SocketMode, 8, 32)
	if err != nil || m > 0o777 {
		return 0, fmt.Errorf("%q is not an octal file mode like 0660", a.SocketMode)
	}
	return os.FileMode(m), nil
}

func (c Config) validateHosts() error {
	seen := map[string]bool{}
	for i, h := range c.Hosts {
		key := fmt.Sprintf("hosts[%d]", i)
		switch {
		case h.Name == "":
			return fieldErr(key+".name", "must not be empty")
		case seen[h.Name]:
			return fieldErr(key+".name", fmt.Sprintf("%q used twice", h.Name))
		case h.CPU < 0:
			return fieldErr(key+".cpu", "must not be negative")
		case h.Memory < 0:
			return fieldErr(key+".memory", "must not be negative")
		case c.Driver.Name == "fake" && h.CPU == 0:
			return fieldErr(key+".cpu", "the fake driver needs cpu and memory for every host")
		case c.Driver.Name == "fake" && h.Memory == 0:
			return fieldErr(key+".memory", "the fake driver needs cpu and memory for every host")
		}
		if h.MAC != "" {
			if _, err := net.ParseMAC(h.MAC); err != nil {
				return fieldErr(key+".mac", fmt.Sprintf("%q is not a MAC address like 52:54:00:12:34:56", h.MAC))
			}
		}
		seen[h.Name] = true
	}
	if c.Driver.Name == "fake" && len(c.Hosts) == 0 {
		return fieldErr("hosts", "the fake driver needs at least one host", "driver.name")
	}
	return nil
}

func (c Config) validateRest() error {
	switch c.Driver.Name {
	case "fake":
	case "libvirt":
		if err := c.Driver.Libvirt.Validate(); err != nil {
			var fe *fielderr.Error
			if errors.As(err, &fe) {
				return fieldErr("driver.libvirt."+fe.Path, fe.Msg)
			}
			return fieldErr("driver.libvirt", err.Error())
		}
	case "opennebula":
		if err := c.Driver.OpenNebula.Validate(); err != nil {
			var fe *fielderr.Error
			if errors.As(err, &fe) {
				return fieldErr(fe.Path, fe.Msg)
			}
			return fieldErr("driver.opennebula", err.Error())
		}
	default:
		return fieldErr("driver.name", fmt.Sprintf("%q: must be fake, libvirt or opennebula", c.Driver.Name))
	}
	for i, f := range c.Driver.Fake.Faults {
		key := fmt.Sprintf("driver.fake.faults[%d]", i)
		switch f.Op {
		case "start", "suspend", "resume", "migrate", "live-migrate", "stop", "shutdown":
			if f.Fail == "" && f.Slow <= 1 {
				return fieldErr(key, "needs fail (an error text) or slow (> 1)")
			}
		case "host-loss":
			if f.Host == "" {
				return fieldErr(key+".host", "host-loss needs the host")
			}
		default:
			return fieldErr(key+".op", fmt.Sprintf("%q is not an operation", f.Op))
		}
	}
	if err := c.validatePower(); err != nil {
		return err
	}
	p := CronParser
	if c.Jobs.Snapshot != "" && c.Jobs.SnapshotKeep < 1 {
		return fieldErr("jobs.snapshot_keep", fmt.Sprintf("%d: keep at least 1 snapshot (or turn snapshots off with jobs.snapshot: \"\")", c.Jobs.SnapshotKeep))
	}
	for key, spec := range map[string]string{"jobs.accounting": c.Jobs.Accounting, "jobs.compaction": c.Jobs.Compaction, "jobs.snapshot": c.Jobs.Snapshot} {
		if spec == "" {
			continue
		}
		if _, err := p.Parse(spec); err != nil {
			return fieldErr(key, fmt.Sprintf("%q is not a cron schedule: %v", spec, err))
		}
	}
	return nil
}

// validatePower checks the power section, and that an energy policy that
// switches hosts has a power driver to do it with.
func (c Config) validatePower() error {
	for i, f := range c.Power.Faults {
		key := fmt.Sprintf("power.faults[%d]", i)
		switch {
		case c.Power.Driver != "fake":
			return fieldErr(key, "faults are injected by the fake power driver only")
		case f.Op != "on" && f.Op != "off":
			return fieldErr(key+".op", fmt.Sprintf("%q: must be on or off", f.Op))
		case f.Fail == "" && f.Slow <= 1:
			return fieldErr(key, "needs fail (an error text) or slow (> 1)")
		case f.Times < 0:
			return fieldErr(key+".times", "must not be negative")
		}
	}
	switch c.Power.Driver {
	case "none", "fake":
	case "opennebula":
		if c.Driver.Name != "opennebula" {
			return fieldErr("power.driver", "opennebula (one.host.status) needs driver.name opennebula")
		}
	case "command":
		if c.Power.On == "" || c.Power.Off == "" {
			return fieldErr("power.on", "the command power driver needs on and off commands", "power.driver")
		}
		if err := c.validatePowerCommands(); err != nil {
			return err
		}
	default:
		return fieldErr("power.driver", fmt.Sprintf("%q: must be none, fake, command or opennebula", c.Power.Driver))
	}
	if p := c.Energy.Policy; p != "" && p != "always-on" && c.Power.Driver == "none" {
		return fieldErr("energy.policy", fmt.Sprintf("%q switches hosts on and off: it needs power.driver fake, command or opennebula", p))
	}
	return nil
}

// validatePowerCommands builds the command power driver as borad does:
// a template that does not parse, or names a field hosts do not have, is
// refused by the loader (bora config check) rather than at start.
func (c Config) validatePowerCommands() error {
	hosts := map[string]powercmd.HostInfo{}
	for _, h := range c.Hosts {
		hosts[h.Name] = h.PowerInfo()
	}
	p := c.Power
	_, _, err := powercmd.Check(powercmd.Config{On: p.On, Off: p.Off, Status: p.Status, Timeout: p.Timeout}, hosts)
	if err == nil {
		return nil
	}
	field, msg, _ := strings.Cut(err.Error(), ": ") // Check's errors start with the field
	msg = strings.Replace(msg, " in type powercmd.HostInfo", " (the fields are .Name, .Address, .MAC and .BMC)", 1)
	switch field {
	case "on", "off", "status", "timeout":
		return fieldErr("power."+field, msg)
	}
	return fieldErr("power", err.Error())
}

// PowerInfo is what the power commands' templates know of the host.
func (h HostSpec) PowerInfo() powercmd.HostInfo {
	return powercmd.HostInfo{Name: h.Name, Address: h.Address, MAC: h.MAC, BMC: h.BMC}
}

// fieldErr is a bad value of one key, found by validation. Near are the
// keys that made key needed, for a key left out of the file (api.tcp for
// a missing api.tls_cert): the refusal names the line of the first of
// them written.
func fieldErr(key, msg string, near ...string) error {
	return &fielderr.Error{Path: key, Msg: msg, Near: near}
}

// asError turns a validation error into an Error naming the file, the
// key and its line: the one place every refusal of a value gets its line.
func (ls lines) asError(err error, file string) error {
	var fe *fielderr.Error
	if errors.As(err, &fe) {
		return &Error{File: file, Line: ls.line(fe.Path, fe.Near...), Key: fe.Path, Err: errors.New(fe.Msg)}
	}
	return &Error{File: file, Line: 1, Key: "(validation)", Err: err}
}

func sortStrings(s []string) { sort.Strings(s) }
