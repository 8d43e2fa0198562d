package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // TZ=Europe/Paris below, on any machine

	"github.com/bora-sched/bora/api"
)

const (
	aliceToken = "alice-0123456789abcdef"
	adminToken = "admin-0123456789abcdef"
)

// daemon is a real API server on a unix socket in t.TempDir(), over the
// fake service.
type daemon struct {
	socket string
	svc    *fakeService
}

func startDaemon(t *testing.T) *daemon {
	t.Helper()
	d := &daemon{socket: filepath.Join(t.TempDir(), "bora.sock"), svc: newFakeService()}
	s, err := api.NewServer(api.ServerConfig{Socket: d.socket, Tokens: []api.Token{
		{Token: aliceToken, User: "alice"}, {Token: adminToken, User: "ops", Admin: true},
	}, Now: func() time.Time { return t0 }}, d.svc, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	select {
	case <-s.Ready():
	case err := <-done:
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return d
}

// result is what a command printed and its exit code.
type result struct {
	code           int
	stdout, stderr string
}

// bora runs a command line against d with env (BORA_SOCKET is d's, TZ is
// UTC unless env says otherwise).
func (d *daemon) bora(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return map[string]string{"BORA_SOCKET": d.socket, "TZ": "UTC"}[k]
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut, getenv)
	return result{code, out.String(), errOut.String()}
}

// as is the environment of a user with a token.
func as(token string) map[string]string { return map[string]string{"BORA_TOKEN": token} }

// root is an admin, by token: the socket's uid identity would make the
// tests depend on who runs them.
var root = as(adminToken)

func (r result) check(t *testing.T, code int, stdout ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	for _, s := range stdout {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
		}
	}
}

func TestLeaseCreate(t *testing.T) {
	d := startDaemon(t)
	r := d.bora(t, as(aliceToken), "", "lease", "create", "--name", "web", "--vms", "2", "--cpu", "0.5",
		"--memory", "2048", "--duration", "2h", "--start", "2030-01-02 12:00", "--deadline", "+6h", "--class", "migratable")
	// The lease starts a minute after the fake's now (10:00) and ends after
	// a minute of preparation and 2 h of run: 12:02.
	r.check(t, exitOK, "ID  STATE      START                END                  HOSTS",
		"1   scheduled  2030-01-02 10:01:00  2030-01-02 12:02:00  node01")
	want := api.LeaseRequest{Name: "web", VMs: 2, CPU: 0.5, Memory: 2048, Duration: "2h",
		Start: "2030-01-02T12:00:00Z", Deadline: "+6h", Class: "migratable"}
	if got := d.svc.lastRequest(); got != want {
		t.Errorf("request %+v, want %+v", got, want)
	}
}

func TestLeaseCreateFromFiles(t *testing.T) {
	d := startDaemon(t)
	yamlFile := filepath.Join(t.TempDir(), "lease.yaml")
	// A time without a zone is local, as on the command line (TZ is
	// Europe/Paris here: UTC+1 in January).
	writeFile(t, yamlFile, "name: batch\nvms: 4\nduration: 90m\nnot_before: 2030-01-02T11:00:00Z\ndeadline: 2030-01-02 18:00:00\norigin: local\n")
	// A flag overrides the file.
	env := map[string]string{"BORA_TOKEN": aliceToken, "TZ": "Europe/Paris"}
	r := d.bora(t, env, "", "lease", "create", yamlFile, "--vms", "3", "-o", "json")
	r.check(t, exitOK)
	var l api.Lease
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil || l.ID != 1 || l.VMs != 3 || l.User != "alice" {
		t.Fatalf("%+v %v\n%s", l, err, r.stdout)
	}
	want := api.LeaseRequest{Name: "batch", VMs: 3, Duration: "90m", NotBefore: "2030-01-02T11:00:00Z",
		Deadline: "2030-01-02T18:00:00+01:00", Origin: "local"}
	if got := d.svc.lastRequest(); got != want {
		t.Errorf("request %+v, want %+v", got, want)
	}
	// JSON on stdin.
	r = d.bora(t, as(aliceToken), `{"vms": 1, "duration": "1h", "image": "debian"}`, "lease", "create", "-", "-o", "yaml")
	r.check(t, exitOK, "id: 2\n", "state: scheduled\n", "duration_s: 3600\n")
	if got := d.svc.lastRequest(); got.Image != "debian" {
		t.Errorf("request %+v", got)
	}
}

func TestLeaseCreateErrors(t *testing.T) {
	d := startDaemon(t)
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	writeFile(t, bad, "vms: 1\nduration: 1h\ncolour: red\n")
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no duration", []string{"lease", "create", "--vms", "2"}, exitUsage, "--duration is required"},
		{"unknown key in the file", []string{"lease", "create", bad}, exitUsage, `unknown field "colour"`},
		{"missing file", []string{"lease", "create", "/nonexistent.yaml"}, exitUsage, "no such file"},
		{"the daemon's field check", []string{"lease", "create", "--vms", "0", "--duration", "1h"}, exitUsage,
			"400 Bad Request: vms: must be positive"},
		{"bad flag value", []string{"lease", "create", "--vms", "two"}, exitUsage, "invalid argument"},
		{"bad output", []string{"lease", "create", "--duration", "1h", "-o", "xml"}, exitUsage, `unknown output "xml"`},
		{"rejected", []string{"lease", "create", "--vms", "9", "--duration", "1h"}, exitRejected,
			"lease 1 rejected: no-capacity (8 cores free, 9 asked)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := d.bora(t, as(aliceToken), "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tc.code, tc.stderr)
			}
		})
	}
	// The rejected lease is printed with its reason.
	r := d.bora(t, as(aliceToken), "", "lease", "create", "--vms", "10", "--duration", "1h")
	r.check(t, exitRejected, "REASON", "no-capacity")
}

func TestLeaseListShowAndActions(t *testing.T) {
	d := startDaemon(t)
	d.bora(t, as(aliceToken), "", "lease", "create", "--name", "web", "--duration", "1h").check(t, exitOK)
	d.bora(t, root, "", "lease", "create", "--duration", "30m").check(t, exitOK)

	r := d.bora(t, as(aliceToken), "", "lease", "list")
	r.check(t, exitOK, "ID  USER   NAME  KIND         CLASS        ORIGIN  STATE      VMS  START                END                  HOSTS",
		"1   alice  web   best-effort  suspendable  local   scheduled  1    2030-01-02 10:01:00  2030-01-02 11:02:00  node01")
	if strings.Contains(r.stdout, "ops") {
		t.Errorf("alice sees the admin's lease:\n%s", r.stdout)
	}
	r = d.bora(t, root, "", "lease", "list", "--user", "ops", "-o", "json")
	var ls []api.Lease
	if err := json.Unmarshal([]byte(r.stdout), &ls); err != nil || len(ls) != 1 || ls[0].ID != 2 {
		t.Fatalf("%v %+v", err, ls)
	}
	r = d.bora(t, as(aliceToken), "", "lease", "list", "-o", "yaml")
	// The YAML has the API's keys in the API's order.
	r.check(t, exitOK, "- id: 1\n  name: web\n  user: alice\n")

	r = d.bora(t, as(aliceToken), "", "lease", "show", "1")
	r.check(t, exitOK, "State:        scheduled", "Duration:     1h", "PLAN", "prepare  2030-01-02 10:01:00  2030-01-02 10:02:00  1m",
		"HISTORY", "2030-01-02 10:00:00  scheduled  fits")
	d.bora(t, as(aliceToken), "", "lease", "show", "2").check(t, exitNotFound)
	d.bora(t, as(aliceToken), "", "lease", "show", "two").check(t, exitUsage)
	d.bora(t, as(aliceToken), "", "lease", "show").check(t, exitUsage)

	d.bora(t, as(aliceToken), "", "lease", "suspend", "1").check(t, exitForbidden)
	d.bora(t, root, "", "lease", "suspend", "1").check(t, exitOK, "suspending")
	d.bora(t, as(aliceToken), "", "lease", "cancel", "1").check(t, exitOK, "1   web   cancelled  node01")
	r = d.bora(t, as(aliceToken), "", "lease", "cancel", "1")
	r.check(t, exitFailure)
	if !strings.Contains(r.stderr, "409 Conflict: lease 1 is already cancelled") {
		t.Errorf("stderr %q", r.stderr)
	}
}

func TestHostCommands(t *testing.T) {
	d := startDaemon(t)
	d.bora(t, as(aliceToken), "", "host", "list").check(t, exitOK,
		"NAME    POWER  ENABLED  UP   CPU  USED_CPU  MEM  USED_MEM  LEASES",
		"node01  on     yes      yes  8    2         16G  2G        1",
		"node02  off    no       no   8    0         16G  0M        -")
	d.bora(t, as(aliceToken), "", "host", "show", "node01").check(t, exitOK, "CPU:           8 cores, 2 used (25%)",
		"Availability:  0.667 (1 period)")
	d.bora(t, as(aliceToken), "", "host", "show", "node02").check(t, exitOK, "Availability:  0.000 (0 periods)")
	d.bora(t, as(aliceToken), "", "host", "show", "node09").check(t, exitNotFound)
	d.bora(t, as(aliceToken), "", "host", "on", "node02").check(t, exitForbidden)
	d.bora(t, root, "", "host", "on", "node02").check(t, exitOK, "node02  on")
	r := d.bora(t, root, "", "host", "enable", "node02", "-o", "json")
	var h api.Host
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil || !h.Enabled || h.Power != "on" {
		t.Errorf("%+v %v", h, err)
	}
}

func TestStatsCommand(t *testing.T) {
	d := startDaemon(t)
	d.bora(t, as(aliceToken), "", "stats").check(t, exitOK, "Leases:               7", "  done:               5",
		"Preemptions:          3 (6 VMs)", "Overhead:             2m30s", "Utilisation:          25.0%",
		"Started:              2030-01-02 08:30:00 (up 1h30m)")
	d.bora(t, as(aliceToken), "", "stats", "-o", "yaml").check(t, exitOK, "hosts_on: 1\n", "utilisation: 0.25\n")
}

func TestDaemonUnreachable(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "none.sock")
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"lease", "list"}, nil, &out, &errOut,
		func(k string) string { return map[string]string{"BORA_SOCKET": sock}[k] })
	if code != exitUnreachable || !strings.Contains(errOut.String(), "not running at "+sock) {
		t.Errorf("exit %d: %s", code, errOut.String())
	}
	// --socket overrides the environment.
	d := startDaemon(t)
	code = run(context.Background(), []string{"--socket", d.socket, "host", "list"}, nil, &out, &errOut,
		func(k string) string { return map[string]string{"BORA_SOCKET": sock}[k] })
	if code != exitOK {
		t.Errorf("exit %d with --socket", code)
	}
}

func TestWrongToken(t *testing.T) {
	d := startDaemon(t)
	r := d.bora(t, as("nope"), "", "lease", "list")
	if r.code != exitForbidden || !strings.Contains(r.stderr, "401 Unauthorized: invalid token") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	d.bora(t, nil, "", "lease", "list", "--token", aliceToken).check(t, exitOK)
}

func TestUnknownCommand(t *testing.T) {
	d := startDaemon(t)
	d.bora(t, nil, "", "lease", "frobnicate").check(t, exitUsage)
	d.bora(t, nil, "", "nope").check(t, exitUsage)
}

func TestHuman(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 45 * time.Second: "45s", 5 * time.Minute: "5m", 750 * time.Second: "12m30s",
		2*time.Hour + 5*time.Minute: "2h5m", 3 * time.Hour: "3h", 76 * time.Hour: "3d4h", 48 * time.Hour: "2d",
		-90 * time.Second: "-1m30s",
	} {
		if got := human(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}
