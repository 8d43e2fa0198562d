package onecfg

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/bora-sched/bora/fielderr"
)

// Config configures the OpenNebula driver (opennebula.Config is this
// type). In the daemon's YAML it is the
// driver.opennebula section (the keys are the yaml tags: endpoint, user,
// password, auth_file, poll_interval, op_timeout, default_duration,
// migration, take_pending, datastore), and the field paths of its errors name
// it so ("driver.opennebula.poll_interval").
type Config struct {
	// Endpoint is oned's XML-RPC URL (default
	// http://localhost:2633/RPC2).
	Endpoint string `yaml:"endpoint"`
	// User and Password log in explicitly; when empty, the first line
	// ("user:password") of AuthFile is used, and when that is empty too,
	// of $ONE_AUTH or ~/.one/one_auth. The user must be oneadmin (or in
	// the oneadmin group): deploy and migrate need VM:ADMIN.
	User     string `yaml:"user"`
	Password string `yaml:"password"`
	AuthFile string `yaml:"auth_file"`
	// PollInterval is how often the driver looks for pending VMs, VMs
	// gone behind bora's back and host state changes, and the longest
	// wait between two looks at a VM during an operation (default 5s).
	PollInterval time.Duration `yaml:"poll_interval"`
	// OpTimeout bounds each operation (deploy, suspend, ...), on top of
	// the caller's context (default 10m).
	OpTimeout time.Duration `yaml:"op_timeout"`
	// DefaultDuration is the duration of a lease made from a VM without
	// BORA_LEASE, or whose BORA_LEASE has no DURATION (default 1h).
	DefaultDuration time.Duration `yaml:"default_duration"`
	// Migration is "live" (LiveMigrate is one.vm.migrate live; the
	// default) or "cold" (LiveMigrate returns drivers.ErrUnsupported, as
	// the libvirt driver does: the daemon suspends, migrates and resumes,
	// which here is SAVE_SUSPEND, a cold one.vm.migrate of the suspended
	// VM and BOOT_SUSPENDED, each in the phase bora planned for it).
	Migration string `yaml:"migration"`
	// TakePending also takes PENDING VMs (not only HOLD ones) as lease
	// requests: set it when OpenNebula's own scheduler is off.
	TakePending bool `yaml:"take_pending"`
	// Datastore is the system datastore deploy and migrate use; -1 lets
	// OpenNebula choose (the default).
	Datastore int `yaml:"datastore"`
}

// Defaults.
const (
	DefaultEndpoint      = "http://localhost:2633/RPC2" // oned's (oca.DefaultEndpoint)
	DefaultPollInterval  = 5 * time.Second
	DefaultOpTimeout     = 10 * time.Minute
	DefaultLeaseDuration = time.Hour
	MigrationLive        = "live"
	MigrationCold        = "cold"
	defaultDatastore     = -1
	// Section is the configuration's path to Config, which starts the
	// path of every field an error names.
	Section = "driver.opennebula."
)

// DefaultConfig is the configuration with every default set. Start from
// it: the zero Config's Datastore is datastore 0, not "OpenNebula
// chooses".
func DefaultConfig() Config {
	return Config{
		Endpoint:        DefaultEndpoint,
		PollInterval:    DefaultPollInterval,
		OpTimeout:       DefaultOpTimeout,
		DefaultDuration: DefaultLeaseDuration,
		Migration:       MigrationLive,
		Datastore:       defaultDatastore,
	}
}

// WithDefaults fills the zero fields that have a default (all but
// Datastore and TakePending).
func (c Config) WithDefaults() Config {
	d := DefaultConfig()
	if c.Endpoint == "" {
		c.Endpoint = d.Endpoint
	}
	if c.PollInterval == 0 {
		c.PollInterval = d.PollInterval
	}
	if c.OpTimeout == 0 {
		c.OpTimeout = d.OpTimeout
	}
	if c.DefaultDuration == 0 {
		c.DefaultDuration = d.DefaultDuration
	}
	if c.Migration == "" {
		c.Migration = d.Migration
	}
	return c
}

// String shows the configuration with the password redacted.
func (c Config) String() string {
	pw := ""
	if c.Password != "" {
		pw = "<redacted>"
	}
	return fmt.Sprintf("{endpoint:%s user:%s password:%s auth_file:%s poll_interval:%s op_timeout:%s "+
		"default_duration:%s migration:%s take_pending:%t datastore:%d}",
		c.Endpoint, c.User, pw, c.AuthFile, c.PollInterval, c.OpTimeout, c.DefaultDuration,
		c.Migration, c.TakePending, c.Datastore)
}

// GoString redacts the password from %#v too.
func (c Config) GoString() string { return "opennebula.Config" + c.String() }

// Validate checks every field and returns all problems, each a
// *fielderr.Error (matching ErrConfig) naming the field. Zero durations,
// endpoint and migration are fine (they take their defaults).
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...interface{}) {
		errs = append(errs, fielderr.Wrap(ErrConfig, Section+field, format, args...))
	}
	if c.Endpoint != "" {
		u, err := url.Parse(c.Endpoint)
		switch {
		case err != nil:
			bad("endpoint", "does not parse: %v", err)
		case u.Scheme != "http" && u.Scheme != "https":
			bad("endpoint", "want an http:// or https:// URL, got %q", c.Endpoint)
		case u.Host == "":
			bad("endpoint", "no host in %q", c.Endpoint)
		}
	}
	switch {
	case c.User == "" && c.Password != "":
		bad("user", "a password is set but no user")
	case c.User != "" && c.Password == "":
		bad("password", "user %q is set but no password", c.User)
	case c.User != "" && c.AuthFile != "":
		bad("auth_file", "set either user and password or auth_file, not both")
	}
	if c.PollInterval < 0 {
		bad("poll_interval", "must be positive, got %s", c.PollInterval)
	}
	if c.OpTimeout < 0 {
		bad("op_timeout", "must be positive, got %s", c.OpTimeout)
	}
	if c.DefaultDuration < 0 {
		bad("default_duration", "must be positive, got %s", c.DefaultDuration)
	}
	if c.Migration != "" && c.Migration != MigrationLive && c.Migration != MigrationCold {
		bad("migration", "want %q or %q, got %q", MigrationLive, MigrationCold, c.Migration)
	}
	if c.Datastore < -1 {
		bad("datastore", "want a datastore id or -1, got %d", c.Datastore)
	}
	return errors.Join(errs...)
}
