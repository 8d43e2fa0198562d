package sim

import (
	"reflect"
	"testing"
	"time"

	"github.com/bora-sched/bora/admission"
	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
)

// admissionConfig is policy p with a window of 1,000 s, no warm-up beyond
// one end, the limit computed at every decision (the window moves by 1 s)
// and no cron.
func admissionConfig(p admission.PolicyName, threshold time.Duration) *admission.Config {
	c := admission.DefaultConfig()
	c.Policy, c.Threshold, c.RecomputeShare = p, threshold, 0.001
	c.Estimator = admission.EstimatorConfig{Window: 1000 * time.Second, MinSamples: 1}
	return &c
}

func simulateAdmission(t *testing.T, hosts int, adm *admission.Config, reqs ...*leaseBuilder) *report.Report {
	t.Helper()
	rs := make([]scheduler.Request, len(reqs))
	for i, b := range reqs {
		rs[i] = b.Build()
	}
	cfg := scheduler.DefaultConfig()
	cfg.CheckInvariants = true
	r, err := Run(Config{Cluster: Cluster{Hosts: hosts, CPU: 100, Memory: 1024}, Scheduler: cfg, Admission: adm}, rs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func checkAdmissionMetrics(t *testing.T, m report.Metrics, vr, rr, d float64, byReason map[string]int) {
	t.Helper()
	if m.AdmissionViolationRate == nil || m.AdmissionRejectionRate == nil || m.AdmissionThresholdS == nil {
		t.Fatalf("admission metrics missing: %+v", m)
	}
	if got := *m.AdmissionViolationRate; got < vr-1e-9 || got > vr+1e-9 {
		t.Errorf("VR %v, want %v", got, vr)
	}
	if *m.AdmissionRejectionRate != rr || *m.AdmissionThresholdS != d {
		t.Errorf("rejection rate %v, D %v; want %v, %v", *m.AdmissionRejectionRate, *m.AdmissionThresholdS, rr, d)
	}
	if !reflect.DeepEqual(m.ExternalRejections, byReason) {
		t.Errorf("rejections by reason %v, want %v", m.ExternalRejections, byReason)
	}
}

// TestAdmissionOneAtATime: on one host, A (0-100 s) is admitted; B and C
// arrive while it runs and are rejected; D at 150 s comes after A ended.
// D = 50 s and no accepted lease waited: VR = (2*0 + 2)/4 = 50 %.
func TestAdmissionOneAtATime(t *testing.T) {
	r := simulateAdmission(t, 1, admissionConfig(admission.OneAtATime, 50*time.Second),
		lease("A").For(100), lease("B").At(10).For(100), lease("C").At(20).For(100), lease("D").At(150).For(100))
	for name, want := range map[string]string{"A": "done", "B": "rejected", "C": "rejected", "D": "done"} {
		if l := leaseByName(t, r, name); l.State != want {
			t.Errorf("%s: %s, want %s", name, l.State, want)
		}
	}
	if b := leaseByName(t, r, "B"); b.Reason != "admission-limit: 1 external lease admitted, limit 1 (one-at-a-time)" || b.StartS != nil {
		t.Errorf("B: reason %q, start %v", b.Reason, b.StartS)
	}
	if r.Metrics.ExternalRejectionRate != 50 || r.Metrics.ExternalCompletedPercent != 50 {
		t.Errorf("external rejected %v %%, completed %v %%; want 50, 50", r.Metrics.ExternalRejectionRate, r.Metrics.ExternalCompletedPercent)
	}
	checkAdmissionMetrics(t, r.Metrics, 50, 50, 50, map[string]int{"admission-limit": 2})
}

// TestAdmissionAcceptAllVR: accept-all changes no plan; on one host A, B
// and C (100 s each, at 0, 10, 20 s) start at 0, 100 and 200 s, so they
// wait 0, 90 and 180 s: with D = 50 s two of three waited longer, VR =
// 3*(2/3)/3 = 66.67 %.
func TestAdmissionAcceptAllVR(t *testing.T) {
	reqs := []*leaseBuilder{lease("A").For(100), lease("B").At(10).For(100), lease("C").At(20).For(100)}
	r := simulateAdmission(t, 1, admissionConfig(admission.AcceptAll, 50*time.Second), reqs...)
	checkAdmissionMetrics(t, r.Metrics, 200.0/3, 0, 50, map[string]int{})
	plain := simulate(t, 1, scheduler.DefaultConfig(), reqs...)
	if !reflect.DeepEqual(r.Leases, plain.Leases) || !reflect.DeepEqual(r.Gantt, plain.Gantt) {
		t.Error("accept-all changed the leases or the Gantt chart")
	}
	if plain.Metrics.AdmissionViolationRate != nil || plain.Metrics.ExternalRejections != nil {
		t.Errorf("a run without admission has admission metrics: %+v", plain.Metrics)
	}
}

// TestAdmissionRateFromHistory: the estimator is fed by the run. Ten local
// leases arrive at 0..9 s; E0 (0-8 s, one VM of four hosts: service
// 8 × 1/4 = 2 s, mu_e = 0.5) is admitted while warming up. At 20 s lambda
// = 10/20 = 0.5, K = floor(0.5/0.5) = 1: X1 is admitted (E0 is done); at
// 21 s and 22 s K = floor(1.05) = floor(1.1) = 1 with X1 running: X2 and
// X3 are rejected. No accepted lease waited: VR = 2/4 = 50 %. The limit
// is computed again at every event (the window moves by 1 s): the last
// time at 220 s, when X1 ends: D = 3 × (8 + 200)/2 = 312 s.
func TestAdmissionRateFromHistory(t *testing.T) {
	reqs := []*leaseBuilder{lease("E0").For(8)}
	for i := range 10 {
		reqs = append(reqs, lease("L").At(float64(i)).For(1).Now())
	}
	reqs = append(reqs, lease("X1").At(20).For(200), lease("X2").At(21).For(200), lease("X3").At(22).For(200))
	r := simulateAdmission(t, 4, admissionConfig(admission.Rate, 0), reqs...)
	if x := leaseByName(t, r, "X1"); x.State != "done" {
		t.Errorf("X1: %s, want done", x.State)
	}
	if x := leaseByName(t, r, "X2"); x.Reason != "admission-limit: 1 external lease admitted, limit 1 (rate)" {
		t.Errorf("X2: %q", x.Reason)
	}
	checkAdmissionMetrics(t, r.Metrics, 50, 50, 312, map[string]int{"admission-limit": 2})
}

// TestAdmissionCron: the limit is computed at the cron's times while the
// run goes on, and not after. Two hosts; A (0-100 s) and B (0-40 s) run
// at once, C at 130-140 s. The cron every 60 s: at 60 s B's run time 40
// s gives D = 3 × 40 = 120 s; at 120 s A's too, D = 3 × 70 = 210 s; at
// 180 s nothing is left: C's end is not counted.
func TestAdmissionCron(t *testing.T) {
	c := admissionConfig(admission.AcceptAll, 0)
	c.RecomputeShare = 1
	c.Next = func(t time.Time) time.Time { return t.Truncate(time.Minute).Add(time.Minute) }
	r := simulateAdmission(t, 2, c, lease("A").For(100), lease("B").For(40), lease("C").At(130).For(10))
	checkAdmissionMetrics(t, r.Metrics, 0, 0, 210, map[string]int{})
}
