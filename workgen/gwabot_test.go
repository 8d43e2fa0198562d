package workgen

import (
	"errors"
	"math"
	"testing"

	"github.com/bora-sched/bora/scheduler"
)

// normalRaw are the raw moments of N(mu, s^2).
func normalRaw(mu, s float64) raw {
	return raw{0, mu, mu*mu + s*s, mu*mu*mu + 3*mu*s*s, mu*mu*mu*mu + 6*mu*mu*s*s + 3*s*s*s*s}
}

// weibullRaw are the raw moments scale^k Γ(1 + k/shape).
func weibullRaw(scale, shape float64) raw {
	var m raw
	for k := 1; k <= 4; k++ {
		m[k] = math.Pow(scale, float64(k)) * math.Gamma(1+float64(k)/shape)
	}
	return m
}

// The external stream over two days (about 108k requests at a mean
// inter-arrival of 1.7 Γ(1 + 1/7.86) = 1.60 s): tasks, task duration and
// inter-arrival against the model, on the first 100k requests.
func TestGWABotMoments(t *testing.T) {
	w, err := Generate("gwa-bot", 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Requests) < draws {
		t.Fatalf("%d external requests, want at least %d", len(w.Requests), draws)
	}
	s, _ := readGWABot(w.Params)
	tasks, durs, gaps := make([]float64, draws), make([]float64, draws), make([]float64, draws)
	prev := 0.0
	for i, r := range w.Requests[:draws] {
		tasks[i], durs[i] = float64(r.VMs), r.Duration.Seconds()
		gaps[i], prev = r.Arrival.Seconds()-prev, r.Arrival.Seconds()
	}
	// Weibull(1.76, 2.11) rounded up: P(1) = 1 - e^-(1/1.76)^2.11 = 0.2966, ...
	checkMoments(t, "tasks", tasks, pmfRaw(s.tasksPMF()))
	checkMoments(t, "task duration", durs, normalRaw(90, 6.1))
	checkMoments(t, "inter-arrival", gaps, weibullRaw(1.7, 7.86))
	if p := s.tasksPMF()[1]; math.Abs(p-(1-math.Exp(-math.Pow(1/1.76, 2.11)))) > 1e-12 {
		t.Errorf("P(1 task) = %v", p)
	}
}

// External requests: deadline leases, about half low-urgency (ratio
// N(4,1)) and half high (N(2,1)), the ratio never below 1. The mean of
// X ~ N(mu, 1) floored at 1 is E[max(1, X)] = 1 + E[(X-1)+] =
// 1 + (mu-1)Φ(mu-1) + φ(mu-1): 4.0004 for mu = 4, 2.0833 for mu = 2.
func TestGWABotDeadlines(t *testing.T) {
	w, err := Generate("gwa-bot", 6, map[string]string{"days": "0.5"})
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, r := range w.Requests {
		if err := r.Validate(); err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		ratio := float64(r.Deadline-r.Arrival) / float64(r.Duration)
		if r.Kind != scheduler.Deadline || r.Origin != scheduler.External || r.Class != scheduler.Suspendable || ratio < 1 {
			t.Fatalf("%s: %s %s %s, deadline ratio %.3f", r.Name, r.Kind, r.Origin, r.Class, ratio)
		}
		sum += ratio
	}
	floored := func(mu float64) float64 {
		z := mu - 1
		return 1 + z*0.5*math.Erfc(-z/math.Sqrt2) + math.Exp(-z*z/2)/math.Sqrt(2*math.Pi)
	}
	want := (floored(4) + floored(2)) / 2 // 3.0419
	// The ratio's variance is at most 0.25 x 4 + 1 = 2 (the mixture of
	// means 2 and 4, and the unit variance): 3 standard errors.
	n := float64(len(w.Requests))
	if got := sum / n; math.Abs(got-want) > 3*math.Sqrt(2/n) {
		t.Errorf("mean deadline ratio %.4f over %d requests, want %.4f", got, len(w.Requests), want)
	}
}

// external_kind=best-effort makes the same requests best-effort leases
// without a deadline (the urgency is still drawn, so every other draw is
// the same); memory sets every VM's memory. A best-effort request of a
// deadline-bound class is refused.
func TestGWABotBestEffortAndMemory(t *testing.T) {
	params := map[string]string{"days": "0.05"}
	dl, err := Generate("gwa-bot", 3, params)
	if err != nil {
		t.Fatal(err)
	}
	params["external_kind"], params["memory"] = "best-effort", "64"
	be, err := Generate("gwa-bot", 3, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(be.Requests) != len(dl.Requests) || len(be.Requests) < 100 {
		t.Fatalf("%d best-effort requests, %d deadline ones", len(be.Requests), len(dl.Requests))
	}
	for i, r := range be.Requests {
		d := dl.Requests[i]
		if r.Kind != scheduler.BestEffort || r.Deadline != 0 || r.Class != scheduler.Suspendable || r.Memory != 64 || r.Validate() != nil ||
			r.Arrival != d.Arrival || r.Duration != d.Duration || r.VMs != d.VMs {
			t.Fatalf("request %d: %+v, deadline twin %+v", i, r, d)
		}
	}
	for i, c := range be.Clusters {
		for j, r := range c.Requests {
			if d := dl.Clusters[i].Requests[j]; r.Memory != 64 || r.Arrival != d.Arrival || r.Kind != d.Kind {
				t.Fatalf("%s request %d: %+v, with 1024 MB %+v", c.Name, j, r, d)
			}
		}
	}
	_, err = Generate("gwa-bot", 3, map[string]string{"external_kind": "best-effort", "external_class": "migratable"})
	if !errors.Is(err, ErrBadParam) || !containsWord(err, "external_kind=best-effort") {
		t.Errorf("best-effort migratable: %v, want ErrBadParam naming external_kind", err)
	}
}

// The clusters: C64, C128, C256 with local immediate leases; C128's
// local stream has the mean inter-arrival 4 Γ(1 + 1/7.86) = 3.76 s, so
// about 11.5k requests in half a day; C64 (alpha 5) fewer, C256 (alpha
// 3) more.
func TestGWABotClusters(t *testing.T) {
	w, err := Generate("gwa-bot", 7, map[string]string{"days": "0.5"})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Clusters) != 3 {
		t.Fatalf("%d clusters, want 3", len(w.Clusters))
	}
	wantN := []float64{}
	for _, a := range []float64{5, 4, 3} {
		m, _ := weibullMoments(a, 7.86)
		wantN = append(wantN, 43200/m)
	}
	for i, c := range w.Clusters {
		if c.Name != das2Clusters[i].name || c.Hosts != das2Clusters[i].hosts || c.HostCPU != 100 || c.HostMemory != 1024 {
			t.Errorf("cluster %d: %+v", i, c)
		}
		// A renewal count over T has sd about sqrt(T var / mean^3): with
		// cv 0.15 that is under 0.2 % of the count; allow 1 %.
		if n := float64(len(c.Requests)); math.Abs(n-wantN[i]) > 0.01*wantN[i] {
			t.Errorf("%s: %v local requests, want %.0f", c.Name, n, wantN[i])
		}
		for _, r := range c.Requests[:100] {
			if r.Origin != scheduler.Local || r.Kind != scheduler.Immediate || r.Validate() != nil {
				t.Errorf("%s %s: %s %s", c.Name, r.Name, r.Origin, r.Kind)
			}
		}
	}
}

func TestGWABotBadParams(t *testing.T) {
	for _, c := range []struct{ k, v string }{
		{"alpha_l", "1"}, {"alpha_e", "0.00001"}, {"external_class", "urgent"}, {"moldable", "yes"}, {"sigma", "-1"},
		{"external_kind", "urgent"}, {"memory", "0"}, {"memory", "2048"}, {"memory", "1.5"},
	} {
		_, err := Generate("gwa-bot", 1, map[string]string{c.k: c.v})
		if !errors.Is(err, ErrBadParam) || !containsWord(err, c.k+"=") {
			t.Errorf("%s=%s: error %v, want ErrBadParam naming %s", c.k, c.v, err, c.k)
		}
	}
}
