package workgen

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/bora-sched/bora/scheduler"
)

func logNormalRaw(mu, sigma float64) raw {
	var m raw
	for k := 1.0; k <= 4; k++ {
		m[int(k)] = math.Exp(k*mu + k*k*sigma*sigma/2)
	}
	return m
}

// streamSample is the sizes, durations and inter-arrivals of the first n
// requests.
func streamSample(t *testing.T, reqs []scheduler.Request, n int) (sizes, durs, gaps []float64) {
	t.Helper()
	if len(reqs) < n {
		t.Fatalf("%d requests, want at least %d", len(reqs), n)
	}
	prev := 0.0
	for _, r := range reqs[:n] {
		sizes = append(sizes, float64(r.VMs))
		durs = append(durs, r.Duration.Seconds())
		gaps = append(gaps, r.Arrival.Seconds()-prev)
		prev = r.Arrival.Seconds()
	}
	return sizes, durs, gaps
}

// Over 8 days: the gateway's stream (0.148/s, about 102k requests) and
// C256's (1.2 Γ(1 + 1/0.35) = 6.04 s, about 114k) against the model.
func TestDAS2Moments(t *testing.T) {
	w, err := Generate("das2", 11, map[string]string{"days": "8"})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := readDAS2(w.Params)
	sizes, durs, gaps := streamSample(t, w.Requests, draws)
	checkMoments(t, "grid size", sizes, pmfRaw(s.ext.size.pmf()))
	checkMoments(t, "grid duration", durs, logNormalRaw(4.2, 1.7))
	checkMoments(t, "grid inter-arrival", gaps, weibullRaw(7.0, 1.1))
	sizes, durs, gaps = streamSample(t, w.Clusters[2].Requests, draws)
	checkMoments(t, "C256 size", sizes, pmfRaw(s.local[2].size.pmf()))
	checkMoments(t, "C256 duration", durs, logNormalRaw(5.5, 1.7))
	checkMoments(t, "C256 inter-arrival", gaps, weibullRaw(1.2, 0.35))
	// The source's mean-size formula against the exact mean (for the
	// README): it takes 2^r at the mean of r.
	for _, st := range append([]das2Stream{s.ext}, s.local[:]...) {
		exact, _ := st.size.moments()
		t.Logf("m=%.1f h=%.0f: exact mean %.3f, source's formula %.3f (%+.1f %%)", st.size.Med, st.size.High,
			exact, st.size.sourceMean(), 100*(st.size.sourceMean()/exact-1))
	}
}

// External classes a quarter each; deadline-bound ones are deadline
// leases due at arrival + 2-4 x duration; locals immediate; C64's sizes
// never above 64.
func TestDAS2Setup(t *testing.T) {
	w, err := Generate("das2", 12, nil)
	if err != nil {
		t.Fatal(err)
	}
	classes := map[scheduler.Class]int{}
	for _, r := range w.Requests {
		if err := r.Validate(); err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		classes[r.Class]++
		if r.Class == scheduler.Migratable || r.Class == scheduler.NonPreemptable {
			ratio := float64(r.Deadline-r.Arrival) / float64(r.Duration)
			if r.Kind != scheduler.Deadline || ratio < 2 || ratio > 4.01 {
				t.Errorf("%s (%s): %s, ratio %.3f", r.Name, r.Class, r.Kind, ratio)
			}
		} else if r.Kind != scheduler.BestEffort {
			t.Errorf("%s (%s): %s, want best-effort", r.Name, r.Class, r.Kind)
		}
	}
	// About 25.6k requests: a quarter is 6.4k, binomial sd 69; 3 sd = 208.
	n := float64(len(w.Requests))
	for _, c := range externalClasses {
		if math.Abs(float64(classes[c])-n/4) > 3*math.Sqrt(n*0.25*0.75) {
			t.Errorf("%d %s of %v, want a quarter", classes[c], c, n)
		}
	}
	for i, c := range w.Clusters {
		for _, r := range c.Requests {
			if r.VMs > das2Clusters[i].hosts || r.Kind != scheduler.Immediate || r.Origin != scheduler.Local {
				t.Fatalf("%s %s: %d VMs, %s %s", c.Name, r.Name, r.VMs, r.Kind, r.Origin)
			}
		}
	}
}

func TestDAS2BadParams(t *testing.T) {
	for _, c := range []struct{ k, v string }{
		{"m_e", "7"}, {"alpha_c64", "0"}, {"b", "x"}, {"deadline_ratio_min", "5"}, {"local_notice", "exp(-1h)"},
	} {
		_, err := Generate("das2", 1, map[string]string{c.k: c.v})
		if !errors.Is(err, ErrBadParam) || !containsWord(err, "=") {
			t.Errorf("%s=%s: error %v, want ErrBadParam", c.k, c.v, err)
		}
	}
}

// TestDAS2LocalScale: local_scale multiplies the three local scales, so
// at 2 each cluster's local requests arrive at half the rate (over 8
// days, within 10 % of half the count at 1), the gateway's are drawn the
// same way, and at 1 the workload is the one without the parameter.
func TestDAS2LocalScale(t *testing.T) {
	base, err := Generate("das2", 5, map[string]string{"days": "8"})
	if err != nil {
		t.Fatal(err)
	}
	one, err := Generate("das2", 5, map[string]string{"days": "8", "local_scale": "1"})
	if err != nil {
		t.Fatal(err)
	}
	half, err := Generate("das2", 5, map[string]string{"days": "8", "local_scale": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(base.Requests, one.Requests) || !reflect.DeepEqual(base.Clusters, one.Clusters) {
		t.Error("local_scale 1 changed the workload")
	}
	for i := range base.Clusters {
		n, h := len(base.Clusters[i].Requests), len(half.Clusters[i].Requests)
		if r := float64(h) / float64(n); r < 0.45 || r > 0.55 {
			t.Errorf("%s: %d local requests at scale 2 against %d at 1 (ratio %.3f, want 0.5)", base.Clusters[i].Name, h, n, r)
		}
	}
	if _, err := Generate("das2", 5, map[string]string{"local_scale": "0"}); !errors.Is(err, ErrBadParam) {
		t.Errorf("local_scale 0: %v, want ErrBadParam", err)
	}
}
