package oca_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

func TestCredentials(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want oca.Credentials
		ok   bool
	}{
		{"oneadmin:secret", oca.Credentials{User: "oneadmin", Password: "secret"}, true},
		{"  oneadmin:se:cr:et \n", oca.Credentials{User: "oneadmin", Password: "se:cr:et"}, true},
		{"oneadmin", oca.Credentials{}, false},
		{":secret", oca.Credentials{}, false},
		{"oneadmin:", oca.Credentials{}, false},
	} {
		got, err := oca.ParseCredentials(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseCredentials(%q) = %#v, %v", tc.in, got, err)
		}
		if err != nil && (!errors.Is(err, oca.ErrBadCredentials) || strings.Contains(err.Error(), "secret")) {
			t.Errorf("ParseCredentials(%q): error %v", tc.in, err)
		}
	}
	c := oca.Credentials{User: "oneadmin", Password: "secret"}
	if s := fmt.Sprintf("%v %+v %#v %s", c, c, c, c); strings.Contains(s, "secret") || !strings.Contains(s, "oneadmin") {
		t.Errorf("printed credentials: %s", s)
	}
}

func TestAuthFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "one_auth")
	if err := os.WriteFile(p, []byte("serveradmin:tok3n\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := oca.ReadAuthFile(p)
	if err != nil || c.User != "serveradmin" || c.Password != "tok3n" {
		t.Errorf("ReadAuthFile = %#v, %v", c, err)
	}
	empty := filepath.Join(dir, "empty")
	_ = os.WriteFile(empty, nil, 0o600)
	for _, bad := range []string{empty, filepath.Join(dir, "missing")} {
		if _, err := oca.ReadAuthFile(bad); !errors.Is(err, oca.ErrBadCredentials) {
			t.Errorf("ReadAuthFile(%s): %v", bad, err)
		}
	}

	t.Setenv("ONE_AUTH", p)
	if got, err := oca.DefaultAuthFile(); err != nil || got != p {
		t.Errorf("DefaultAuthFile with $ONE_AUTH = %q, %v", got, err)
	}
	t.Setenv("ONE_AUTH", "")
	t.Setenv("HOME", dir)
	if got, err := oca.DefaultAuthFile(); err != nil || got != filepath.Join(dir, ".one", "one_auth") {
		t.Errorf("DefaultAuthFile = %q, %v", got, err)
	}
}
