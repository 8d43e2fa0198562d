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
