package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/config"
	borad "github.com/bora-sched/bora/daemon"
)

const gatewayToken = "gateway-0123456789abcdef"

// admStart is the simulated clock's start of the admission tests.
var admStart = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// admissionConfig is borad on a fake cluster of one host of one core, a
// simulated clock from admStart, and admission policy pacp with D =
// 1,800 s, a window of an hour, a warm-up of 10 minutes, one end per
// service time, recomputed every 3 minutes (5 % of the window), no cron.
func admissionConfig(dir string) config.Config {
	c := config.Default()
	c.Daemon.Store = filepath.Join(dir, "bora.db")
	c.Daemon.Clock, c.Daemon.Start = "simulated", admStart.Format(time.RFC3339)
	c.Daemon.OpRetries = 0
	c.API.Socket = filepath.Join(dir, "bora.sock")
	c.API.Tokens = []config.Token{{Token: aliceToken, User: "alice"}, {Token: adminToken, User: "ops", Admin: true},
		{Token: gatewayToken, User: "gateway", External: true}}
	c.Jobs = config.Jobs{}
	c.Hosts = []config.HostSpec{{Name: "h0", CPU: 1, Memory: 1024}}
	c.Admission.Policy, c.Admission.Threshold = "pacp", 1800*time.Second
	c.Admission.Window, c.Admission.Warmup, c.Admission.MinSamples = time.Hour, 10*time.Minute, 1
	c.Admission.Schedule = ""
	return c
}

// realDaemon runs borad on c with its API server, until stop (or the end
// of the test); d.bora runs commands against it.
type realDaemon struct {
	daemon
	stop func()
}

func startRealDaemon(t *testing.T, c config.Config) *realDaemon {
	t.Helper()
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	d, err := borad.New(context.Background(), borad.Options{Config: c, Log: lg, SimQuiet: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := borad.NewAPIServer(d, c, lg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 2)
	go func() { done <- d.Run(ctx) }()
	go func() { done <- srv.Serve(ctx) }()
	stopped := false
	r := &realDaemon{daemon: daemon{socket: c.API.Socket}}
	r.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		for i := 0; i < 2; i++ {
			if err := <-done; err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(r.stop)
	select {
	case <-srv.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("API not ready")
	}
	return r
}

// admissionOf is the admission part of `bora stats -o json`.
func admissionOf(t *testing.T, d *realDaemon) api.Admission {
	t.Helper()
	r := d.bora(t, root, "", "stats", "-o", "json")
	r.check(t, exitOK)
	var st api.Stats
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Admission == nil {
		t.Fatalf("stats: %v, %s", err, r.stdout)
	}
	return *st.Admission
}

// waitAdmission polls the stats until cond holds.
func waitAdmission(t *testing.T, d *realDaemon, what string, cond func(api.Admission) bool) api.Admission {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		a := admissionOf(t, d)
		if cond(a) {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %+v", what, a)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDaemonAdmissionPACP: borad with admission policy pacp. Two external
// leases of 10 minutes on the one core, one after the other (service
// time run × share = 600 s each), warm the estimator up; the limit is
// computed again when the second ends. Then a burst of external leases
// over the gateway's token: the first K* are admitted, the rest rejected
// with the reason and exit code 9; `bora stats` shows the limit; after a
// restart the estimates go on from the store.
func TestDaemonAdmissionPACP(t *testing.T) {
	dir := t.TempDir()
	c := admissionConfig(dir)
	d := startRealDaemon(t, c)
	gw := as(gatewayToken)

	// Warming up: no limit, every external lease admitted.
	a := admissionOf(t, d)
	if a.Policy != "pacp" || a.Limit != nil || a.Warm || a.ThresholdS != 1800 {
		t.Fatalf("at start: %+v, want pacp, no limit, warming up, D 1800", a)
	}
	for _, name := range []string{"E1", "E2"} {
		d.bora(t, gw, "", "lease", "create", "--name", name, "--duration", "10m", "--origin", "external", "-o", "json").check(t, exitOK)
	}
	// E2 ends at 1,200 s (both ran 600 s on the one core): the pass
	// computes the limit from 2 external arrivals over 1,200 s (Lambda =
	// 1/600 per second), service 600 s (run 600 s × share 1, cv 0), no
	// local load: rho_e = 1.
	a = waitAdmission(t, d, "both ends observed and the limit computed", func(a api.Admission) bool {
		return a.Observations["external-end"] == 2 && a.Warm
	})
	if !a.ComputedAt.Equal(admStart.Add(20*time.Minute)) || a.SpanS != 1200 || a.Inputs.ExternalRate != 2.0/1200 ||
		a.Inputs.ExternalMeanS != 600 || a.Inputs.ExternalRunS != 600 || a.Inputs.LocalRate != 0 ||
		a.Observations["external-arrival"] != 2 || a.Admitted != 0 || a.CompletedPercent != 100 {
		t.Fatalf("after E1 and E2: %+v", a)
	}
	// E(R_K) of the M/D/1/K queue at rho_e = 1, E(T) = 600 s (the method
	// of queueing/testdata/mg1k_exact.py, a_k = e^-1/k!): 600, 820.7,
	// 1,107.7, 1,405.0, 1,703.8, 2,003.1 s; D = 1,800 s: K* = 5.
	if a.Limit == nil || *a.Limit != 5 {
		t.Fatalf("limit %v, want 5", a.Limit)
	}
	r := d.bora(t, root, "", "admission", "explain")
	r.check(t, exitOK)
	tableHas(t, r.stdout, "Admission limit: 5", "Threshold D: 1,800 s", "External arrivals: 0.00166667/s",
		"1 600 s <= D", "5 1,704 s <= D", "6 2,003 s > D", "K* = 5: the largest K with E(R_K) <= D = 1,800 s (capped at 1000)")
	r = d.bora(t, root, "", "admission", "explain", "-o", "json")
	r.check(t, exitOK)
	var x api.Admission
	if err := json.Unmarshal([]byte(r.stdout), &x); err != nil || x.Explain == nil || len(x.Explain.ResponseTimesS) != 6 ||
		x.Explain.KStar != 5 || math.Abs(x.Explain.ResponseTimesS[1]-820.7276647) > 1e-3 {
		t.Fatalf("explain -o json: %v %s", err, r.stdout)
	}

	// The burst: 5 admitted (0..4 admitted before each), the next two
	// rejected at once with the reason, exit code 9.
	reason := "admission-limit: 5 external leases admitted, limit 5 (pacp, D = 1,800 s)"
	for i := 3; i <= 9; i++ {
		r := d.bora(t, gw, "", "lease", "create", "--name", fmt.Sprintf("E%d", i), "--duration", "1h", "--origin", "external")
		if i <= 7 {
			r.check(t, exitOK)
			continue
		}
		r.check(t, exitAdmission)
		if !strings.Contains(r.stderr, fmt.Sprintf("lease %d rejected: %s", i, reason)) {
			t.Errorf("E%d: stderr %q, want the reason %q", i, r.stderr, reason)
		}
	}
	r = d.bora(t, root, "", "lease", "show", "9", "-o", "json")
	r.check(t, exitOK, `"state": "rejected"`, `"reason": "admission-limit"`, `"detail": "5 external leases admitted, limit 5 (pacp, D = 1,800 s)"`)
	// A local lease is not asked.
	d.bora(t, as(aliceToken), "", "lease", "create", "--name", "L", "--duration", "1h").check(t, exitOK)
	r = d.bora(t, root, "", "stats")
	r.check(t, exitOK)
	tableHas(t, r.stdout, "Admission policy: pacp", "Admission limit: 5", "Admitted external: 5", "rejected, admission-limit: 2",
		"History: 12 observations held, since 2030-01-01T00:00:00Z")
	before := admissionOf(t, d)
	// Held: 9 external arrivals, 2 ends, 1 local arrival; the limit's
	// inputs are those of 1,200 s.
	if before.Held != 12 || before.Observations["external-arrival"] != 2 || before.Rejections["admission-limit"] != 2 {
		t.Fatalf("after the burst: %+v", before)
	}
	// VR over the finished external leases: E1, E2 done at once (a = 2,
	// v = 0), 2 rejected (r = 2): (0 + 2)/(2 + 2) = 50 %; done 2 of 4.
	if before.ViolationRate != 50 || before.CompletedPercent != 50 {
		t.Errorf("VR %v, done %v %%; want 50 and 50", before.ViolationRate, before.CompletedPercent)
	}

	// A restart on the same store: the estimates, the limit and the
	// admitted leases go on from there, not from zero.
	d.stop()
	d = startRealDaemon(t, c)
	after := admissionOf(t, d)
	if after.Held != 12 || !after.Since.Equal(admStart) || after.Observations["external-arrival"] != 2 || after.Limit == nil ||
		*after.Limit != 5 || !after.ComputedAt.Equal(before.ComputedAt) || after.Admitted != 5 || !after.Warm {
		t.Fatalf("after a restart: %+v\nbefore: %+v", after, before)
	}
	r = d.bora(t, gw, "", "lease", "create", "--name", "E11", "--duration", "1h", "--origin", "external")
	r.check(t, exitAdmission)
	if !strings.Contains(r.stderr, reason) {
		t.Errorf("after a restart: stderr %q, want %q", r.stderr, reason)
	}
}

// tableHas checks that out has each line, blanks collapsed.
func tableHas(t *testing.T, out string, lines ...string) {
	t.Helper()
	have := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		have[strings.Join(strings.Fields(l), " ")] = true
	}
	for _, l := range lines {
		if !have[l] {
			t.Errorf("no line %q in:\n%s", l, out)
		}
	}
}
