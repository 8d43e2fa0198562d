package power

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/power/powercmd"
)

var testHosts = map[string]HostInfo{
	"h1": {Address: "10.0.0.1", MAC: "52:54:00:00:00:01", BMC: "10.1.0.1"},
	"h2": {Name: "node-2", Address: "10.0.0.2", MAC: "52:54:00:00:00:02", BMC: "10.1.0.2"},
}

// stateDir returns a directory and commands that keep each host's power
// state in a file there, logging every on and off command.
func stateDir(t *testing.T) (string, CommandConfig) {
	dir := t.TempDir()
	q := powercmd.ShellQuote(dir)
	return dir, CommandConfig{
		On:      "echo on > " + q + "/{{.Name}} && echo on {{.Name}} >> " + q + "/log",
		Off:     "echo off > " + q + "/{{.Name}} && echo off {{.Name}} >> " + q + "/log",
		Status:  "cat " + q + "/{{.Name}} 2>/dev/null || echo off",
		Timeout: 5 * time.Second,
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

func TestCommandSwitches(t *testing.T) {
	dir, cfg := stateDir(t)
	c, err := NewCommand(cfg, testHosts, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	steps := []struct {
		name string
		do   func() error
		want drivers.PowerState
	}{
		{"on", func() error { return c.PowerOn(ctx, "h1") }, drivers.PowerOn},
		{"on again: the status says on, nothing runs", func() error { return c.PowerOn(ctx, "h1") }, drivers.PowerOn},
		{"off", func() error { return c.PowerOff(ctx, "h1") }, drivers.PowerOff},
		{"off again", func() error { return c.PowerOff(ctx, "h1") }, drivers.PowerOff},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if st, err := c.Status(ctx, "h1"); err != nil || st != s.want {
			t.Fatalf("%s: status %q, %v; want %q", s.name, st, err, s.want)
		}
	}
	if got, want := readFile(t, filepath.Join(dir, "log")), "on h1\noff h1\n"; got != want {
		t.Errorf("commands run:\n%s\nwant:\n%s", got, want)
	}
	// Name defaults to the map key unless given.
	if err := c.PowerOn(ctx, "h2"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "node-2")); got != "on\n" {
		t.Errorf("node-2 file: %q", got)
	}
}

func TestCommandTemplateFields(t *testing.T) {
	dir := t.TempDir()
	out := powercmd.ShellQuote(filepath.Join(dir, "args"))
	cfg := CommandConfig{
		On:  "echo {{.Name}} {{.Address}} {{.MAC}} {{.BMC}} {{quote \"it's\"}} > " + out,
		Off: "true",
	}
	c, err := NewCommand(cfg, testHosts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.PowerOn(context.Background(), "h1"); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, filepath.Join(dir, "args")), "h1 10.0.0.1 52:54:00:00:00:01 10.1.0.1 it's\n"; got != want {
		t.Errorf("args %q, want %q", got, want)
	}
}

func TestCommandFailure(t *testing.T) {
	cfg := CommandConfig{
		On:  "echo starting; for i in 1 2 3 4 5 6 7; do echo noise $i >&2; done; echo 'ipmi: no answer from {{.BMC}}' >&2; exit 3",
		Off: "true",
	}
	c, err := NewCommand(cfg, testHosts, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = c.PowerOn(context.Background(), "h1")
	var ce *CommandError
	if !errors.As(err, &ce) || !errors.Is(err, ErrCommand) {
		t.Fatalf("err = %v, want a *CommandError", err)
	}
	if ce.ExitCode != 3 || ce.Op != "on" || ce.Host != "h1" {
		t.Errorf("error %+v, want exit 3 of on h1", ce)
	}
	// The last 5 lines of stderr: noise 4..7 and the ipmi line.
	want := "power on h1: exit status 3: stderr: noise 4 | noise 5 | noise 6 | noise 7 | ipmi: no answer from 10.1.0.1"
	if err.Error() != want {
		t.Errorf("message\n%s\nwant\n%s", err, want)
	}
}

func TestCommandTimeout(t *testing.T) {
	cfg := CommandConfig{On: "sleep 5", Off: "true", Timeout: 100 * time.Millisecond}
	c, err := NewCommand(cfg, testHosts, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = c.PowerOn(context.Background(), "h1")
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %s: the sleep outlived the timeout", took)
	}
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if want := "power on h1: timed out after 100ms"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

// The caller's context ending is its error, not a command failure.
func TestCommandCallerCancels(t *testing.T) {
	c, err := NewCommand(CommandConfig{On: "sleep 5", Off: "true"}, testHosts, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err = c.PowerOn(ctx, "h1")
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrCommand) {
		t.Fatalf("err = %v, want the caller's deadline", err)
	}
}

func TestCommandStatus(t *testing.T) {
	cases := []struct {
		name   string
		status string
		want   drivers.PowerState
		err    error
	}{
		{"on", "echo on", drivers.PowerOn, nil},
		{"off with spaces and case", "printf '  OFF \\n'", drivers.PowerOff, nil},
		{"booting", "echo booting", drivers.PowerBooting, nil},
		{"garbage", "echo 'Chassis Power is on'", "", ErrBadStatus},
		{"failing", "exit 1", "", ErrCommand},
		{"none", "", "", drivers.ErrUnsupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := NewCommand(CommandConfig{On: "true", Off: "true", Status: c.status}, testHosts, nil)
			if err != nil {
				t.Fatal(err)
			}
			st, err := d.Status(context.Background(), "h1")
			if st != c.want || !errors.Is(err, c.err) {
				t.Errorf("Status = %q, %v; want %q, %v", st, err, c.want, c.err)
			}
		})
	}
}

// A status command that fails does not stop the switch.
func TestCommandStatusFailsSwitchesAnyway(t *testing.T) {
	dir := t.TempDir()
	cfg := CommandConfig{On: "touch " + powercmd.ShellQuote(filepath.Join(dir, "ran")), Off: "true", Status: "exit 7"}
	c, err := NewCommand(cfg, testHosts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.PowerOn(context.Background(), "h1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
		t.Errorf("on command did not run: %v", err)
	}
}

func TestCommandUnknownHost(t *testing.T) {
	c, err := NewCommand(CommandConfig{On: "true", Off: "true", Status: "echo on"}, testHosts, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.PowerOn(ctx, "h9"); !errors.Is(err, drivers.ErrUnknownHost) {
		t.Errorf("PowerOn: %v", err)
	}
	if err := c.PowerOff(ctx, "h9"); !errors.Is(err, drivers.ErrUnknownHost) {
		t.Errorf("PowerOff: %v", err)
	}
	if _, err := c.Status(ctx, "h9"); !errors.Is(err, drivers.ErrUnknownHost) {
		t.Errorf("Status: %v", err)
	}
}

func TestCommandConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		cfg  CommandConfig
		want string // prefix of the message
	}{
		{"no on", CommandConfig{Off: "true"}, "on: required"},
		{"no off", CommandConfig{On: "true", Off: "  "}, "off: required"},
		{"unclosed action", CommandConfig{On: "ipmitool -H {{.BMC", Off: "true"}, "on: template: on:1: "},
		{"unknown function", CommandConfig{On: "true", Off: "true", Status: "{{lower .Name}}"}, "status: template: status:1: "},
		{"unknown field", CommandConfig{On: "true", Off: "wake {{.Rack}}"}, "off: template: off:1:"},
		{"negative timeout", CommandConfig{On: "true", Off: "true", Timeout: -1}, "timeout: must not be negative"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewCommand(c.cfg, testHosts, nil)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("err = %v, want one starting %q", err, c.want)
			}
		})
	}
	// Unknown fields are found even without hosts.
	if _, err := NewCommand(CommandConfig{On: "{{.Rack}}", Off: "true"}, nil, nil); err == nil {
		t.Error("no error for an unknown field without hosts")
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":          "''",
		"plain":     "'plain'",
		"it's":      `'it'\''s'`,
		"$(reboot)": "'$(reboot)'",
	} {
		if got := powercmd.ShellQuote(in); got != want {
			t.Errorf("powercmd.ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestCommandAddHost: a host added after the driver was built is switched
// with its own fields; an empty name is refused.
func TestCommandAddHost(t *testing.T) {
	dir := t.TempDir()
	out := powercmd.ShellQuote(filepath.Join(dir, "args"))
	c, err := NewCommand(CommandConfig{On: "echo {{.Name}} {{.MAC}} > " + out, Off: "true"}, testHosts, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.PowerOn(ctx, "h3"); !errors.Is(err, drivers.ErrUnknownHost) {
		t.Fatalf("before it is added: %v", err)
	}
	if err := c.AddHost(HostInfo{Name: "h3", MAC: "52:54:00:00:00:03"}); err != nil {
		t.Fatal(err)
	}
	if err := c.PowerOn(ctx, "h3"); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, filepath.Join(dir, "args")), "h3 52:54:00:00:00:03\n"; got != want {
		t.Errorf("args %q, want %q", got, want)
	}
	if err := c.AddHost(HostInfo{}); !errors.Is(err, drivers.ErrUnknownHost) {
		t.Errorf("empty name: %v", err)
	}
}
