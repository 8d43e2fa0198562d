// Package powercmd holds the command power driver's templates: the
// commands as text, what they know of a host, and their parsing and
// expansion. It is a leaf: config checks a configuration's commands
// with it, without the driver (package drivers/power runs them).
package powercmd

import (
	"fmt"
	"strings"
	"text/template"
	"time"
)

// Config holds the power commands, as text/template texts over a
// HostInfo ({{.Name}}, {{.Address}}, {{.MAC}}, {{.BMC}}; {{quote .X}}
// quotes a value for the shell). Each runs with /bin/sh -c.
type Config struct {
	On     string // powers the host on; should return once it is up
	Off    string // powers the host off; should return once it is off
	Status string // optional: prints "on" or "off" (any power state)
	// Timeout bounds each command (0 = only the caller's context); a
	// command still running then is killed with its process group.
	Timeout time.Duration
}

// HostInfo is what the templates know of a host.
type HostInfo struct {
	Name    string // defaults to the key in the hosts map
	Address string
	MAC     string
	BMC     string
}

// Scripts are one host's commands, expanded ("" for a command not
// given).
type Scripts struct{ On, Off, Status string }

// Templates are a Config's commands, parsed.
type Templates struct {
	on, off, status *template.Template
}

// Parse parses cfg's commands. Errors name the field: "on: required",
// "status: template: ...", "timeout: must not be negative". An unknown
// field is found here, by expanding each command once for an empty
// host.
func Parse(cfg Config) (Templates, error) {
	if cfg.Timeout < 0 {
		return Templates{}, fmt.Errorf("timeout: must not be negative, got %s", cfg.Timeout)
	}
	var t Templates
	for _, f := range []struct {
		name     string
		text     string
		required bool
		dst      **template.Template
	}{
		{"on", cfg.On, true, &t.on},
		{"off", cfg.Off, true, &t.off},
		{"status", cfg.Status, false, &t.status},
	} {
		if strings.TrimSpace(f.text) == "" {
			if f.required {
				return Templates{}, fmt.Errorf("%s: required", f.name)
			}
			continue
		}
		tmpl, err := template.New(f.name).Funcs(template.FuncMap{"quote": ShellQuote}).Parse(f.text)
		if err != nil {
			return Templates{}, fmt.Errorf("%s: %w", f.name, err)
		}
		if _, err := expand(tmpl, HostInfo{}); err != nil {
			return Templates{}, fmt.Errorf("%s: %w", f.name, err)
		}
		*f.dst = tmpl
	}
	return t, nil
}

// Expand is h's commands; errors name the field and the host ("off:
// host h1: template: ... can't evaluate field Rack").
func (t Templates) Expand(h HostInfo) (Scripts, error) {
	var s Scripts
	for _, f := range []struct {
		name string
		tmpl *template.Template
		dst  *string
	}{{"on", t.on, &s.On}, {"off", t.off, &s.Off}, {"status", t.status, &s.Status}} {
		if f.tmpl == nil {
			continue
		}
		text, err := expand(f.tmpl, h)
		if err != nil {
			return Scripts{}, fmt.Errorf("%s: host %s: %w", f.name, h.Name, err)
		}
		*f.dst = text
	}
	return s, nil
}

// Check parses cfg and expands it for every host (a host's Name
// defaults to its key), as the driver does when it is built.
func Check(cfg Config, hosts map[string]HostInfo) (Templates, map[string]Scripts, error) {
	t, err := Parse(cfg)
	if err != nil {
		return Templates{}, nil, err
	}
	out := make(map[string]Scripts, len(hosts))
	for name, h := range hosts {
		if h.Name == "" {
			h.Name = name
		}
		if out[name], err = t.Expand(h); err != nil {
			return Templates{}, nil, err
		}
	}
	return t, out, nil
}

func expand(t *template.Template, h HostInfo) (string, error) {
	var b strings.Builder
	if err := t.Execute(&b, h); err != nil {
		return "", err
	}
	return b.String(), nil
}

// ShellQuote quotes s as one word for /bin/sh.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
