package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bora-sched/bora/workload"
)

// runLocal runs a command line that needs no daemon.
func runLocal(args ...string) result {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errOut, func(string) string { return "" })
	return result{code, out.String(), errOut.String()}
}

func TestWorkloadGenerateErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string // in the message
	}{
		{[]string{"workload", "generate", "lublin98"}, `"lublin98"`},
		{[]string{"workload", "generate", "lublin99", "--param", "requets=10"}, `"requets": unknown parameter`},
		{[]string{"workload", "generate", "lublin99", "--param", "requests=ten"}, `requests="ten"`},
		{[]string{"workload", "generate", "lublin99", "--param", "mean_vms=99"}, `mean_vms="99"`},
		{[]string{"workload", "generate", "lublin99", "--param", "requests"}, `--param "requests": want name=value`},
		{[]string{"workload", "generate", "lublin99", "--format", "csv"}, `--format: unknown format "csv"`},
		{[]string{"workload", "generate"}, "give a model"},
	}
	for _, c := range cases {
		r := runLocal(c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, r.code, r.stderr, exitUsage, c.want)
		}
	}
}

// The same seed writes the same bytes; another seed other bytes; the
// file reads back with as many leases as asked for.
func TestWorkloadGenerateFile(t *testing.T) {
	dir := t.TempDir()
	gen := func(name, seed string) []byte {
		p := filepath.Join(dir, name)
		r := runLocal("workload", "generate", "lublin99", "--seed", seed, "--param", "requests=200", "-o", p)
		if r.code != exitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := gen("a.yaml", "5"), gen("b.yaml", "5"), gen("c.yaml", "6")
	if !bytes.Equal(a, b) {
		t.Error("seed 5 twice: different files")
	}
	if bytes.Equal(a, c) {
		t.Error("seeds 5 and 6: the same file")
	}
	for _, name := range []string{"a.yaml", "d.json", "e.swf"} {
		if name != "a.yaml" {
			gen(name, "5")
		}
		tr, err := workload.ReadFile(filepath.Join(dir, name), workload.DefaultOptions())
		if err != nil || len(tr.Requests) != 200 {
			t.Errorf("%s: %v leases, %v; want 200", name, tr, err)
		}
	}
}

func TestWorkloadModels(t *testing.T) {
	r := runLocal("workload", "models")
	if r.code != exitOK || !strings.Contains(r.stdout, "lublin99\n") || !strings.Contains(r.stdout, "local_notice") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	if l := runLocal("workload", "generate", "--list"); l.stdout != r.stdout {
		t.Errorf("--list printed %q, want the models' list", l.stdout)
	}
}

// A multi-cluster model writes a directory: gateway.json and one file a
// cluster; it cannot go to standard output.
func TestWorkloadGenerateDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "das2")
	r := runLocal("workload", "generate", "das2", "--param", "days=0.05", "-o", dir)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, f := range []string{"gateway.json", "C64.json", "C128.json", "C256.json"} {
		tr, err := workload.ReadFile(filepath.Join(dir, f), workload.DefaultOptions())
		if err != nil || len(tr.Requests) == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if r := runLocal("workload", "generate", "gwa-bot"); r.code != exitUsage || !strings.Contains(r.stderr, "give a directory") {
		t.Errorf("gwa-bot to stdout: exit %d, %q", r.code, r.stderr)
	}
}
