package opennebula

import (
	"github.com/bora-sched/bora/drivers/opennebula/oca"
	"github.com/bora-sched/bora/drivers/opennebula/onecfg"
	"github.com/bora-sched/bora/fielderr"
)

// Config configures the driver: package onecfg, which the configuration
// loader validates without importing the driver.
type Config = onecfg.Config

// Defaults (onecfg's).
const (
	DefaultPollInterval  = onecfg.DefaultPollInterval
	DefaultOpTimeout     = onecfg.DefaultOpTimeout
	DefaultLeaseDuration = onecfg.DefaultLeaseDuration
	MigrationLive        = onecfg.MigrationLive
	MigrationCold        = onecfg.MigrationCold
)

// DefaultConfig is the configuration with every default set
// (onecfg.DefaultConfig).
func DefaultConfig() Config { return onecfg.DefaultConfig() }

// credentials resolves how to log in: explicit, AuthFile, $ONE_AUTH,
// ~/.one/one_auth, in that order.
func credentials(c Config) (oca.Credentials, error) {
	if c.User != "" {
		return oca.Credentials{User: c.User, Password: c.Password}, nil
	}
	path := c.AuthFile
	field := "auth_file"
	if path == "" {
		p, err := oca.DefaultAuthFile()
		if err != nil {
			return oca.Credentials{}, fielderr.Wrap(ErrConfig, onecfg.Section+field, "%s", err.Error())
		}
		path = p
	}
	cr, err := oca.ReadAuthFile(path)
	if err != nil {
		return oca.Credentials{}, fielderr.Wrap(ErrConfig, onecfg.Section+field,
			"no user/password configured and the ONE_AUTH file is unusable: %v", err)
	}
	return cr, nil
}
