package opennebula

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
	"github.com/bora-sched/bora/fielderr"
)

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(c *Config)
		field string // "" = valid
	}{
		{"defaults", func(c *Config) {}, ""},
		{"zero durations take defaults", func(c *Config) { c.PollInterval, c.OpTimeout = 0, 0 }, ""},
		{"explicit credentials", func(c *Config) { c.User, c.Password = "oneadmin", "x" }, ""},
		{"ftp endpoint", func(c *Config) { c.Endpoint = "ftp://one:2633/RPC2" }, "driver.opennebula.endpoint"},
		{"endpoint without host", func(c *Config) { c.Endpoint = "http:///RPC2" }, "driver.opennebula.endpoint"},
		{"password without user", func(c *Config) { c.Password = "x" }, "driver.opennebula.user"},
		{"user without password", func(c *Config) { c.User = "oneadmin" }, "driver.opennebula.password"},
		{"user and auth file", func(c *Config) { c.User, c.Password, c.AuthFile = "a", "b", "/f" }, "driver.opennebula.auth_file"},
		{"negative poll interval", func(c *Config) { c.PollInterval = -time.Second }, "driver.opennebula.poll_interval"},
		{"negative op timeout", func(c *Config) { c.OpTimeout = -time.Second }, "driver.opennebula.op_timeout"},
		{"negative default duration", func(c *Config) { c.DefaultDuration = -time.Second }, "driver.opennebula.default_duration"},
		{"unknown migration", func(c *Config) { c.Migration = "warp" }, "driver.opennebula.migration"},
		{"datastore -2", func(c *Config) { c.Datastore = -2 }, "driver.opennebula.datastore"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.field == "" {
				if err != nil {
					t.Errorf("Validate: %v", err)
				}
				return
			}
			var ce *fielderr.Error
			if !errors.As(err, &ce) || ce.Path != tc.field || !errors.Is(err, ErrConfig) {
				t.Errorf("Validate = %v, want a ConfigError for %s", err, tc.field)
			}
		})
	}
	// Every problem is reported, not only the first.
	c := DefaultConfig()
	c.PollInterval, c.Migration = -1, "warp"
	if err := c.Validate(); !strings.Contains(err.Error(), "poll_interval") || !strings.Contains(err.Error(), "migration") {
		t.Errorf("Validate = %v, want both fields", err)
	}
}

func TestWrongCredentialsFailAtStart(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg
	cfg.Password = "not-the-password"
	_, err := New(context.Background(), cfg, e.logger())
	if !errors.Is(err, ErrLogin) || !errors.Is(err, oca.ErrAuthentication) {
		t.Fatalf("New with a wrong password: %v, want ErrLogin and oca.ErrAuthentication", err)
	}
	for _, want := range []string{"User couldn't be authenticated", "as oneadmin", cfg.Endpoint} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "not-the-password") {
		t.Errorf("error %q shows the password", err)
	}
}

func TestUnreachableOned(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Endpoint = "http://127.0.0.1:1/RPC2"
	cfg.User, cfg.Password = "oneadmin", testPassword
	_, err := New(context.Background(), cfg, nil)
	if !errors.Is(err, ErrLogin) || strings.Contains(err.Error(), testPassword) {
		t.Errorf("New against nothing: %v", err)
	}
}

func TestCredentialsFromTheAuthFile(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "one_auth")
	if err := os.WriteFile(good, []byte("oneadmin:"+testPassword+"\n# ignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badFile := filepath.Join(dir, "bad_auth")
	if err := os.WriteFile(badFile, []byte(testPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	cfg := e.cfg
	cfg.User, cfg.Password, cfg.AuthFile = "", "", good
	e.driverWith(cfg)

	// Without auth_file: $ONE_AUTH.
	t.Setenv("ONE_AUTH", good)
	cfg.AuthFile = ""
	e.driverWith(cfg)

	for name, path := range map[string]string{"missing": filepath.Join(dir, "nope"), "no colon": badFile} {
		cfg.AuthFile = path
		_, err := New(context.Background(), cfg, e.logger())
		var ce *fielderr.Error
		if !errors.As(err, &ce) || ce.Path != "driver.opennebula.auth_file" {
			t.Errorf("%s auth file: %v, want a ConfigError for opennebula.auth_file", name, err)
		}
		if err != nil && strings.Contains(err.Error(), testPassword) {
			t.Errorf("%s auth file: error %q shows the file's content", name, err)
		}
	}
}

func TestSecretsAreNeverPrinted(t *testing.T) {
	c := DefaultConfig()
	c.User, c.Password = "oneadmin", testPassword
	cr := oca.Credentials{User: "oneadmin", Password: testPassword}
	for _, s := range []string{
		c.String(), fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s", c, c, c, c),
		cr.String(), fmt.Sprintf("%v %+v %#v %s", cr, cr, cr, cr),
	} {
		if strings.Contains(s, testPassword) {
			t.Errorf("%q shows the password", s)
		}
	}
}

// TestDefaultEndpointIsOned: the configuration's default endpoint is the
// one the client dials when given none.
func TestDefaultEndpointIsOned(t *testing.T) {
	if DefaultConfig().Endpoint != oca.DefaultEndpoint {
		t.Errorf("default endpoint %q, the client's %q", DefaultConfig().Endpoint, oca.DefaultEndpoint)
	}
}
