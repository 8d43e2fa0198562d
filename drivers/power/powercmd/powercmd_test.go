package powercmd

import (
	"strings"
	"testing"
)

// TestCheck: every host's commands expanded, a host's name taken from
// its key when empty, quote making one shell word, a missing status
// command left empty.
func TestCheck(t *testing.T) {
	cfg := Config{On: "wake {{.MAC}}", Off: "ipmitool -H {{quote .BMC}} off"}
	hosts := map[string]HostInfo{"h1": {MAC: "aa:bb"}, "h2": {Name: "h2", BMC: "it's"}}
	_, got, err := Check(cfg, hosts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Scripts{
		"h1": {On: "wake aa:bb", Off: "ipmitool -H '' off"},
		"h2": {On: "wake ", Off: `ipmitool -H 'it'\''s' off`},
	}
	for h, w := range want {
		if got[h] != w {
			t.Errorf("%s: %+v, want %+v", h, got[h], w)
		}
	}
}

// TestCheckErrors: each error names the field, and the host where one
// host's expansion fails.
func TestCheckErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Off: "x"}, "on: required"},
		{Config{On: "x", Off: " "}, "off: required"},
		{Config{On: "x", Off: "x", Status: "{{.Rack}}"}, "status: template: status:1:2: executing \"status\" at <.Rack>: can't evaluate field Rack"},
		{Config{On: "{{", Off: "x"}, "on: template: on:1: unclosed action"},
		{Config{On: "x", Off: "x", Timeout: -1}, "timeout: must not be negative"},
	} {
		_, _, err := Check(c.cfg, map[string]HostInfo{"h1": {}})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	tm, err := Parse(Config{On: "{{if .MAC}}{{.MAC.X}}{{end}}", Off: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.Expand(HostInfo{Name: "h9", MAC: "m"}); err == nil || !strings.HasPrefix(err.Error(), "on: host h9: ") {
		t.Errorf("a host's failing expansion: %v, want it to name on and h9", err)
	}
}
