package daemon

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/bora-sched/bora/admission"
	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/store"
)

// startAdmission is start with a simulated clock that holds still for two
// seconds after each change: the test's calls all happen at simStart.
func startAdmission(t *testing.T, c config.Config, lg *logrus.Logger) *running {
	t.Helper()
	if lg == nil {
		lg = logrus.New()
		lg.SetOutput(io.Discard)
	}
	d, err := New(context.Background(), Options{Config: c, Log: lg, SimQuiet: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{Daemon: d, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- d.Run(ctx) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

var gateway = api.Caller{User: "gw", UID: 1002, External: true}

// TestAdmissionMetrics: with one-at-a-time on one host, at simStart, the
// first external lease (1h) is admitted, the second rejected with the
// reason, a local one admitted unasked. The stats and the metrics show
// the limit 1, 1 admitted, the rejection by reason, the inputs, and
// VR = (a*v + r)/(a + r) × 100 over the finished external leases: only
// the rejected one is finished (a = 0, r = 1): 100 %; none done: 0 %.
func TestAdmissionMetrics(t *testing.T) {
	c := testConfig(t.TempDir(), 1)
	c.Admission.Policy = "one-at-a-time"
	// The clock holds still: E1's start, in progress at the stop, is
	// left behind at once.
	c.Daemon.ShutdownTimeout = 50 * time.Millisecond
	d := startAdmission(t, c, nil)
	ctx := context.Background()
	ext := api.LeaseRequest{Name: "E1", VMs: 1, Duration: "1h", Origin: "external"}
	if l, err := d.CreateLease(ctx, gateway, ext); err != nil || l.State == "rejected" {
		t.Fatalf("E1: %+v, %v; want admitted", l, err)
	}
	ext.Name = "E2"
	l, err := d.CreateLease(ctx, gateway, ext)
	if err != nil || l.State != "rejected" || l.Reason != "admission-limit" || l.Detail != "1 external lease admitted, limit 1 (one-at-a-time)" {
		t.Fatalf("E2: %+v, %v; want rejected by admission", l, err)
	}
	if l, err := d.CreateLease(ctx, alice, api.LeaseRequest{Name: "L", VMs: 1, Duration: "1h"}); err != nil || l.State == "rejected" {
		t.Fatalf("local: %+v, %v; want admitted", l, err)
	}
	st, err := d.Stats(ctx, admin)
	if err != nil || st.Admission == nil {
		t.Fatalf("stats: %+v, %v", st, err)
	}
	a := st.Admission
	if a.Policy != "one-at-a-time" || a.Limit == nil || *a.Limit != 1 || a.Admitted != 1 || a.Rejections["admission-limit"] != 1 ||
		a.ViolationRate != 100 || a.CompletedPercent != 0 || a.Held != 3 {
		t.Errorf("stats: %+v", a)
	}
	for name, want := range map[string]float64{
		"bora_admission_limit": 1, "bora_admission_admitted": 1, "bora_external_rejections_total/admission-limit": 1,
		"bora_admission_violation_rate": 100, "bora_external_completed_percent": 0,
	} {
		waitUntil(t, name, func() bool { return metric(t, d, name) == want })
	}
	// GET /v1/admission of a daemon without a policy: not found.
	plain := start(t, testConfig(t.TempDir(), 1))
	if _, err := plain.Admission(ctx, admin); err == nil || !strings.Contains(err.Error(), "admission.policy is not set") {
		t.Errorf("without a policy: %v", err)
	}
	if st, _ := plain.Stats(ctx, admin); st.Admission != nil {
		t.Errorf("stats without a policy: %+v", st.Admission)
	}
}

// TestAdmissionDamagedSnapshot: a stored admission state that does not
// decode, or that decodes to an observation the estimator refuses, is
// logged and replaced by a fresh controller whose history starts at the
// daemon's start; the daemon runs, and its next commit stores a good
// snapshot in its place.
func TestAdmissionDamagedSnapshot(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"not json", `{"estimator": [`},
		{"share over 1", `{"estimator":{"since":"2029-12-31T00:00:00Z","observations":[{"kind":"local-end","at":"2029-12-31T01:00:00Z","run_s":60,"share":2}],"kept":{}},"state":{"policy":"pacp","computed_at":"0001-01-01T00:00:00Z","estimate":{"at":"0001-01-01T00:00:00Z","span_s":0,"load":{"local_rate":0,"local_service_rate":0,"local_cv":0,"external_mean":0,"external_rate":0},"external_run_s":0,"counts":null,"rates_ready":false,"local_ready":false,"external_ready":false},"threshold_s":0,"limit":{"k":0},"warm":false}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig(t.TempDir(), 1)
			c.Admission.Policy = "pacp"
			st, err := store.Open(c.Daemon.Store, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Commit(store.Batch{Meta: map[string][]byte{metaAdmission: []byte(tc.data)}}); err != nil {
				t.Fatal(err)
			}
			st.Close()
			lg := logrus.New()
			lg.SetOutput(io.Discard)
			hook := logtest.NewLocal(lg)
			d := startAdmission(t, c, lg)
			a, err := d.Admission(context.Background(), admin)
			if err != nil || a.Held != 0 || !a.Since.Equal(simStart) || a.Limit != nil {
				t.Fatalf("admission: %+v, %v; want a fresh estimator since %s", a, err, simStart)
			}
			found := false
			for _, e := range hook.AllEntries() {
				found = found || e.Level == logrus.WarnLevel && strings.Contains(e.Message, "stored admission state is damaged")
			}
			if !found {
				t.Error("no warning about the damaged admission state")
			}
			d.stop(t)
			st, err = store.Open(c.Daemon.Store, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			saved, err := st.Load()
			if err != nil {
				t.Fatal(err)
			}
			var snap admission.Snapshot
			if err := json.Unmarshal(saved.Meta[metaAdmission], &snap); err != nil || !snap.Estimator.Since.Equal(simStart) {
				t.Errorf("stored after the start: %v, since %s; want a good snapshot since %s", err, snap.Estimator.Since, simStart)
			}
		})
	}
}

// TestAdmissionCron: the limit is computed again at the times of
// admission.schedule, the loop waking for them while something else is
// to happen. A local lease of 25 minutes from simStart; every 10 minutes,
// the window (1h) moving by 100 % only after an hour: computed at start,
// at 00:10 and 00:20, not at the lease's end (00:25), nor later (nothing
// left to happen on a simulated clock).
func TestAdmissionCron(t *testing.T) {
	c := testConfig(t.TempDir(), 1)
	c.Admission.Policy, c.Admission.Window, c.Admission.RecomputeShare = "pacp", time.Hour, 1
	c.Admission.Schedule = "*/10 * * * *"
	d := start(t, c)
	ctx := context.Background()
	l, err := d.CreateLease(ctx, alice, api.LeaseRequest{Name: "L", VMs: 1, Duration: "25m"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, l.ID, "done", func(l api.Lease) bool { return l.State == "done" })
	a, err := d.Admission(ctx, admin)
	if err != nil || !a.ComputedAt.Equal(simStart.Add(20*time.Minute)) || a.Observations["local-arrival"] != 1 || a.Held != 2 {
		t.Errorf("admission: %+v, %v; want computed at 00:20 from 1 local arrival, 2 observations held", a, err)
	}
}
