package experiment

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/sim"
	"github.com/bora-sched/bora/simconfig"
	"github.com/bora-sched/bora/workgen"
)

func runSmall(t *testing.T, workers int) *Result {
	t.Helper()
	s, err := Parse([]byte(goodSpec), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var calls, last int
	r, err := Run(context.Background(), s, Options{Workers: workers, Progress: func(done, total int) {
		calls, last = calls+1, done
		if total != 8 {
			t.Errorf("total %d runs, want 2 values x 2 seeds x 2 policies = 8", total)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Runs != 8 || calls != 4 || last != 8 {
		t.Errorf("runs %d, progress calls %d (last %d): want 8 runs reported after each of 4 workloads", r.Runs, calls, last)
	}
	return r
}

// TestRunMatchesSimulate: each sample is what the simulator gives for
// that workload and policy, run by hand; the summaries are those of the
// samples; the paired differences are MOV's minus NOP's seed by seed.
func TestRunMatchesSimulate(t *testing.T) {
	r := runSmall(t, 2)
	for p, share := range []string{"0.2", "0.5"} {
		for k, seed := range []uint64{1, 2} {
			w, err := workgen.Generate("lublin99", seed, map[string]string{"requests": "60", "days": "1", "hosts": "8", "local_share": share})
			if err != nil {
				t.Fatal(err)
			}
			for q, pol := range []preempt.Policy{preempt.NOP, preempt.MOV} {
				cfg := config.Default()
				cfg.Cluster.Hosts, cfg.Cluster.CPU, cfg.Cluster.Memory = 8, 100, 1024
				cfg.Scheduler.Policy = pol
				sc, err := simconfig.Run(cfg)
				if err != nil {
					t.Fatal(err)
				}
				rep, err := sim.Run(sc, w.Requests)
				if err != nil {
					t.Fatal(err)
				}
				got := r.Samples[p][q]
				if got[0][k] != rep.Metrics.LocalRejectionRate || got[1][k] != float64(rep.Metrics.PreemptedLeases) {
					t.Errorf("share %s seed %d %s: samples %v/%v, simulate %v/%v", share, seed, pol,
						got[0][k], got[1][k], rep.Metrics.LocalRejectionRate, rep.Metrics.PreemptedLeases)
				}
			}
		}
		for m := range 2 {
			for q := range 2 {
				if want := Summarize(r.Samples[p][q][m]); r.Summary[p][q][m] != want {
					t.Errorf("summary %+v, want %+v", r.Summary[p][q][m], want)
				}
			}
			if want := Paired(r.Samples[p][1][m], r.Samples[p][0][m]); r.Paired[p][m] != want {
				t.Errorf("paired %+v, want %+v", r.Paired[p][m], want)
			}
		}
	}
	// The workloads have contention: something is rejected or preempted,
	// or the comparison would be empty.
	var any float64
	for p := range 2 {
		for q := range 2 {
			for k := range 2 {
				any += r.Samples[p][q][0][k] + r.Samples[p][q][1][k]
			}
		}
	}
	if any == 0 {
		t.Error("no local rejection and no preemption anywhere: the test workload has no contention")
	}
}

// TestRunDeterministic: the files do not depend on the number of workers
// or the order runs finish in.
func TestRunDeterministic(t *testing.T) {
	var outs [2][3]bytes.Buffer
	for i, workers := range []int{1, 3} {
		r := runSmall(t, workers)
		for j, write := range []func(*bytes.Buffer, *Result) error{
			func(b *bytes.Buffer, r *Result) error { return WriteJSON(b, r) },
			func(b *bytes.Buffer, r *Result) error { return WriteCSV(b, r) },
			func(b *bytes.Buffer, r *Result) error { return WriteText(b, r) },
		} {
			if err := write(&outs[i][j], r); err != nil {
				t.Fatal(err)
			}
		}
	}
	for j := range 3 {
		if !bytes.Equal(outs[0][j].Bytes(), outs[1][j].Bytes()) {
			t.Errorf("output %d differs between 1 and 3 workers:\n%s\n---\n%s", j, outs[0][j].String(), outs[1][j].String())
		}
	}
}

// TestWriteDir: the tables and a plot per metric in both formats.
func TestWriteDir(t *testing.T) {
	r := runSmall(t, 2)
	dir := t.TempDir()
	files, err := WriteDir(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"results.txt", "results.csv", "results.json", "timings.csv", "local_rejection_rate.svg", "local_rejection_rate.png",
		"preempted_leases.svg", "preempted_leases.png"}
	if len(files) != len(want) {
		t.Fatalf("files %v", files)
	}
	for i, name := range want {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || files[i] != filepath.Join(dir, name) || len(data) == 0 {
			t.Errorf("%s: %d bytes, %v", name, len(data), err)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "local_rejection_rate.svg"))
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("MOV")) {
		t.Error("the SVG plot has no legend entry for MOV")
	}
	png, _ := os.ReadFile(filepath.Join(dir, "preempted_leases.png"))
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Error("not a PNG")
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "results.csv"))
	if lines := strings.Count(string(csv), "\n"); lines != 1+2*(2*2+2) {
		t.Errorf("%d CSV lines, want a header and 2 values x (2 policies + 1 difference) x 2 metrics = 13:\n%s", lines, csv)
	}
}

// TestRunTimesEachRun: each run is timed on the clock of the options
// around its simulation alone, and the experiment as a whole; the
// timings file lists them in the results' order. The clock moves on by
// n seconds at its n-th reading, so with one worker the run at place j
// of the order (value, seed, then policy) reads it at 2j+2 and 2j+3 and
// takes 2j+3 seconds, and the experiment 1 + 2*8 + 1 readings in all.
func TestRunTimesEachRun(t *testing.T) {
	s, err := Parse([]byte(goodSpec), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	at := time.Unix(0, 0)
	now := func() time.Time { // one worker: never read at once
		n++
		at = at.Add(time.Duration(n) * time.Second)
		return at
	}
	r, err := Run(context.Background(), s, Options{Workers: 1, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if n != 18 {
		t.Fatalf("the clock was read %d times, want 1 + 2 a run x 8 + 1 = 18", n)
	}
	// Readings 2 to 18 add 2+3+...+18 = 170 seconds.
	if r.Elapsed != 170*time.Second || r.Workers != 1 {
		t.Errorf("elapsed %v on %d workers, want 2m50s on 1", r.Elapsed, r.Workers)
	}
	for p := range 2 {
		for k := range 2 {
			for q := range 2 {
				j := (p*2+k)*2 + q
				if got, want := r.Wall[p][q][k], time.Duration(2*j+3)*time.Second; got != want {
					t.Errorf("value %d, seed %d, policy %d: %v, want %v", p, k, q, got, want)
				}
			}
		}
	}
	if p, q, k, d := r.Slowest(); p != 1 || q != 1 || k != 1 || d != 17*time.Second {
		t.Errorf("slowest: value %d, policy %d, seed %d, %v; want the last run, 17 s", p, q, k, d)
	}
	var b bytes.Buffer
	if err := WriteTimings(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 9 || lines[0] != "param,value,policy,seed,wall_s" {
		t.Fatalf("timings.csv:\n%s", b.String())
	}
	// Rows go by value, policy, then seed: the second is value 0, policy
	// 0, seed index 1, the run at place 2 (7 s).
	if want := "local_share," + s.Vary.Values[0] + "," + s.Policies[0].Name + "," + strconv.FormatUint(r.Seeds[1], 10) + ",7.000"; lines[2] != want {
		t.Errorf("row 2 %q, want %q", lines[2], want)
	}
}

// TestRunRefusesBadSettings: a configuration value that does not parse is
// refused before any simulation, naming its key and line.
func TestRunRefusesBadSettings(t *testing.T) {
	text := strings.Replace(goodSpec, "{preemption.policy: MOV}", "{preemption.policy: MOVE}", 1)
	s, err := Parse([]byte(text), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	_, err = Run(context.Background(), s, Options{Progress: func(int, int) { ran = true }})
	var se *SpecError
	if !errors.As(err, &se) || se.Line != 9 || se.Path != "policies[1].set.preemption.policy" || ran {
		t.Errorf("got %v (ran %v), want a SpecError at line 9, policies[1].set.preemption.policy", err, ran)
	}
	text = strings.Replace(goodSpec, `values: ["0.2", "0.5"]`, `values: ["0.2", "1.5"]`, 1)
	if s, err = Parse([]byte(text), "x.yaml"); err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), s, Options{})
	if !errors.As(err, &se) || se.Line != 6 || se.Path != "vary.values[1]" {
		t.Errorf("got %v, want a SpecError at line 6, vary.values[1]", err)
	}
}
