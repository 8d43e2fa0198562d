package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestSimulateUnknownPolicy: the message names the key and the valid
// policies, without the package's name or "setting"; exit 2 (usage).
func TestSimulateUnknownPolicy(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"simulate", "--trace", "../../testdata/scenarios/preempt.yaml", "--policy", "FOO"},
		strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	want := "bora: preemption.policy: unknown policy \"FOO\" (want NOP, MOV, MLIP or MOML)\n"
	if code != exitUsage || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr.String(), exitUsage, want)
	}
}

// TestLeaseCreateHelpDefaults: the help gives the class's true default
// per origin (a local lease is non-preemptable, as daemon/convert.go
// makes it) and no admission control, which bora does not have.
func TestLeaseCreateHelpDefaults(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"lease", "create", "--help"},
		strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	help := stdout.String()
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"A local lease (the default origin) is always non-preemptable",
		"local leases: non-preemptable (the default and only class); external: cancellable, suspendable (default)"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "admission") {
		t.Errorf("help mentions admission control:\n%s", help)
	}
}

// TestRejectedLeaseShowsNoRemaining: a lease that never ran has no time
// remaining to show (the fake service rejects more than 8 VMs).
func TestRejectedLeaseShowsNoRemaining(t *testing.T) {
	d := startDaemon(t)
	d.bora(t, as(aliceToken), "", "lease", "create", "--vms", "9", "--duration", "1h").check(t, exitRejected)
	r := d.bora(t, as(aliceToken), "", "lease", "show", "1")
	r.check(t, exitOK, "State:        rejected", "Duration:     1h")
	if strings.Contains(r.stdout, "Remaining") {
		t.Errorf("a rejected lease shows Remaining:\n%s", r.stdout)
	}
}

// TestHelpExitsZero: bora --help prints the commands and exits 0.
func TestHelpExitsZero(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--help"}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	if code != exitOK || !strings.Contains(stdout.String(), "simulate") {
		t.Errorf("exit %d, stdout %q", code, stdout.String())
	}
}
