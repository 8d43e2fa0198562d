package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
)

// TestTablesEscapeControlText: a name with an escape sequence and a
// newline is printed escaped in every table, so it neither colours the
// terminal nor fakes a row; JSON keeps it as it is.
func TestTablesEscapeControlText(t *testing.T) {
	d := startDaemon(t)
	name := "a\x1b[31mred\nfake-row\t\u202egnp.exe"
	d.bora(t, as(aliceToken), "", "lease", "create", "--name", name, "--duration", "1h").check(t, exitOK)
	want := `a\x1b[31mred\nfake-row\t\u202egnp.exe`
	for _, args := range [][]string{{"lease", "list"}, {"lease", "show", "1"}, {"lease", "cancel", "1"}} {
		r := d.bora(t, as(aliceToken), "", args...)
		r.check(t, exitOK, want)
		if strings.ContainsAny(r.stdout, "\x1b\t\u202e") || strings.Contains(r.stdout, "\nfake-row") {
			t.Errorf("%v prints the name raw:\n%q", args, r.stdout)
		}
	}
	// lease list: a header and one row, no third line.
	if r := d.bora(t, as(aliceToken), "", "lease", "list"); strings.Count(r.stdout, "\n") != 2 {
		t.Errorf("lease list has %d lines, want 2:\n%s", strings.Count(r.stdout, "\n"), r.stdout)
	}
	r := d.bora(t, as(aliceToken), "", "lease", "list", "-o", "json")
	r.check(t, exitOK, `"name": "a\u001b[31mred\nfake-row\t`)
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"web":              "web",
		"café ☕ 東京":        "café ☕ 東京",
		"a\x1b[31m":        `a\x1b[31m`,
		"row\nfake":        `row\nfake`,
		"bad\xffutf8":      `bad\xffutf8`,
		"del\x7f c1\u0085": `del\x7f c1\u0085`,
		"rtl\u202eabc":     `rtl\u202eabc`,
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestScheduleClampNote: a window from year 1 is clamped by the server,
// and the CLI says so on stderr (stdout stays the chart or the JSON).
func TestScheduleClampNote(t *testing.T) {
	d := startDaemon(t)
	for _, out := range []string{"table", "json"} {
		r := d.bora(t, as(aliceToken), "", "schedule", "--from", "0001-01-01T00:00:00Z", "--to", "2030-01-02T12:00:00Z", "-o", out)
		r.check(t, exitOK)
		if !strings.Contains(r.stderr, "bora: note: the daemon clamped the window: from 0001-01-01T00:00:00Z is before the scheduler's epoch 1970-01-01T00:00:00Z") {
			t.Errorf("-o %s: stderr %q, want the clamping note", out, r.stderr)
		}
	}
	r := d.bora(t, as(aliceToken), "", "schedule", "--from", "2030-01-02T10:00:00Z", "--to", "2030-01-02T12:00:00Z")
	r.check(t, exitOK)
	if r.stderr != "" {
		t.Errorf("an ordinary window: stderr %q", r.stderr)
	}
}

// TestTokenNotSentInClear: the CLI refuses a plain http:// server other
// than loopback before it sends anything (exit code for usage).
func TestTokenNotSentInClear(t *testing.T) {
	d := startDaemon(t)
	env := map[string]string{"BORA_TOKEN": aliceToken, "BORA_SERVER": "http://head.example:8080"}
	r := d.bora(t, env, "", "lease", "list")
	r.check(t, exitUsage)
	if !strings.Contains(r.stderr, "the bearer token would travel in clear; use https://") {
		t.Errorf("stderr %q", r.stderr)
	}
	r = d.bora(t, as(aliceToken), "", "--server", "http://10.1.2.3:8080", "host", "list")
	r.check(t, exitUsage)
}

// TestBusyInTables: leases api.private_data hides are counted in the host
// table and drawn with their own mark in the chart, not in the legend.
func TestBusyInTables(t *testing.T) {
	var b bytes.Buffer
	if err := hostTable(&b, []api.Host{{Name: "n1", Power: "on", Leases: []uint64{4}, Busy: 2}, {Name: "n2", Power: "on", Busy: 1}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "4,2 busy") || !strings.Contains(b.String(), "1 busy") {
		t.Errorf("host table:\n%s", b.String())
	}
	// 10:00-11:00 in 6 columns of 10 minutes: lease 4 from 10:00 to
	// 10:30 (columns 0-2), another user's lease 10:30-11:00 (3-5).
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	s := api.Schedule{Now: at(0), From: at(0), To: at(60), Hosts: []string{"n1"}, Intervals: []api.Interval{
		{Lease: 4, Host: "n1", Kind: "vm", Start: at(0), End: at(30), VMs: 1, CPU: 1},
		{Lease: 0, Host: "n1", Kind: api.BusyKind, Start: at(30), End: at(60), CPU: 2},
	}}
	b.Reset()
	if err := writeGantt(&b, s, nil, 6, time.UTC); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "n1   |A4A===|") || !strings.Contains(out, "= busy (another user's lease)") || strings.Contains(out, "  B  0") {
		t.Errorf("chart:\n%s", out)
	}
}
