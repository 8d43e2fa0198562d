package queueing

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// fixtureLoads are the operating points of testdata/mg1k_exact.py.
var fixtureLoads = map[string]Load{
	"exp":             {LocalRate: 0.5, LocalServiceRate: 1, LocalCV: 0, ExternalMean: 1, ExternalRate: 0.2},
	"shape2":          {LocalRate: 0.1, LocalServiceRate: 0.5, LocalCV: 1, ExternalMean: 10, ExternalRate: 0.08},
	"shape3-overload": {LocalRate: 0.5, LocalServiceRate: 2, LocalCV: 0, ExternalMean: 3, ExternalRate: 0.3},
}

// readFixture returns E(R_K) by point name from testdata/mg1k_exact.golden,
// the output of testdata/mg1k_exact.py (exact rational arithmetic and a
// full linear solve of the embedded chain).
func readFixture(t testing.TB) map[string][]float64 {
	t.Helper()
	f, err := os.Open("testdata/mg1k_exact.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		fs := strings.Fields(line)
		k, err1 := strconv.Atoi(fs[1])
		v, err2 := strconv.ParseFloat(fs[2], 64)
		if len(fs) != 4 || err1 != nil || err2 != nil || k != len(out[fs[0]])+1 {
			t.Fatalf("bad fixture line %q", line)
		}
		out[fs[0]] = append(out[fs[0]], v)
	}
	if len(out) != 3 {
		t.Fatalf("fixture has %d points, want 3", len(out))
	}
	return out
}

// TestResponseTimesFixture: E(R_K) at three operating points against the
// exact values of testdata/mg1k_exact.py. By hand for "exp" (shape 1,
// scale 2, Lambda 0.2: x = 0.4, a_0 = 5/7, rho_e = 0.4): E(R_1) = E(T) = 2;
// E(R_2) = (a_0 + 2 rho_e - 1)/Lambda = (5/7 - 0.2)*5 = 18/7 = 2.5714,
// which is also M/M/1/2's (r = 0.4: L = 0.72/1.56, admitted rate
// 0.2*1.4/1.56, E(R) = 0.72/0.28 = 18/7).
func TestResponseTimesFixture(t *testing.T) {
	for name, want := range readFixture(t) {
		t.Run(name, func(t *testing.T) {
			load := fixtureLoads[name]
			svc, err := load.Service()
			if err != nil {
				t.Fatal(err)
			}
			got, err := Queue{Rate: load.ExternalRate, Service: svc}.ResponseTimes(len(want))
			if err != nil {
				t.Fatal(err)
			}
			for k := range want {
				if !close(got[k], want[k], 1e-12) {
					t.Errorf("E(R_%d) = %.15g, want %.15g", k+1, got[k], want[k])
				}
			}
		})
	}
	if got, _ := (Queue{Rate: 0.2, Service: Service{Mean: 2, CV: 1}}).ResponseTime(2); !close(got, 18.0/7, 1e-13) {
		t.Errorf("hand value E(R_2) = %.15g, want 18/7", got)
	}
}

// TestResponseTimesMM1K: with CV 1 the queue is M/M/1/K, whose law is
// truncated geometric: p_n ∝ r^n, r = Lambda*mean; E(R_K) = L/(Lambda(1-p_K)).
func TestResponseTimesMM1K(t *testing.T) {
	for _, r := range []float64{0.3, 0.9, 1, 1.7} {
		got, err := Queue{Rate: r, Service: Service{Mean: 1, CV: 1}}.ResponseTimes(40)
		if err != nil {
			t.Fatal(err)
		}
		for K := 1; K <= 40; K++ {
			var z, l float64
			for n := 0; n <= K; n++ {
				p := math.Pow(r, float64(n))
				z += p
				l += float64(n) * p
			}
			pK := math.Pow(r, float64(K)) / z
			want := l / z / (r * (1 - pK))
			if !close(got[K-1], want, 1e-9) {
				t.Errorf("r %g: E(R_%d) = %.12g, want %.12g", r, K, got[K-1], want)
			}
		}
	}
}

// TestRecursionIsTheSpecs: the level-crossing form gives the same pi_k
// as the spec's recursion pi_{k+1} = (pi_k - a_k pi_0 - sum_{j=1..k}
// pi_j a_{k-j+1}) / a_0, computed here literally, where the latter is
// still accurate (small K, moderate load).
func TestRecursionIsTheSpecs(t *testing.T) {
	for _, q := range []Queue{
		{Rate: 0.08, Service: Service{Mean: 12.5, CV: math.Sqrt(0.5)}},
		{Rate: 0.7, Service: Service{Mean: 1, CV: 0.3}},
		{Rate: 1.5, Service: Service{Mean: 1, CV: 2}},
	} {
		const K = 8
		a, _ := NewArrivals(q.Rate, q.Service)
		pi := []float64{1}
		for k := 0; k < K-1; k++ {
			v := pi[k] - a.Prob(k)*pi[0]
			for j := 1; j <= k; j++ {
				v -= pi[j] * a.Prob(k-j+1)
			}
			pi = append(pi, v/a.Prob(0))
		}
		s, _ := newSolver(q, K)
		for k := 0; k < K; k++ {
			s.next()
			if got := math.Exp(s.logPi[k]); !close(got, pi[k], 1e-9) {
				t.Errorf("%+v: pi_%d = %.12g, spec's recursion %.12g", q, k, got, pi[k])
			}
		}
	}
}

// TestResponseTimeGrowsWithK: E(R_K) is nondecreasing in K over a grid
// of loads and cvs, which is what lets KStar stop at the first K over
// the threshold.
func TestResponseTimeGrowsWithK(t *testing.T) {
	for _, rho := range []float64{0.01, 0.3, 0.8, 1, 1.5, 5} {
		for _, cv := range []float64{0, 0.1, 0.5, 1, 2, 5} {
			rs, err := Queue{Rate: rho, Service: Service{Mean: 1, CV: cv}}.ResponseTimes(300)
			if err != nil {
				t.Fatal(err)
			}
			for k := 1; k < len(rs); k++ {
				if rs[k] < rs[k-1]*(1-1e-12) || math.IsNaN(rs[k]) {
					t.Fatalf("rho %g cv %g: E(R_%d) = %g < E(R_%d) = %g", rho, cv, k+1, rs[k], k, rs[k-1])
				}
			}
		}
	}
}

// TestHeavyLoadStaysFinite: a_0 underflows in linear space (shape 1e4,
// x = 0.1: a_0 = 1.1^-1e4 = e^-953), yet E(R_K) is finite. An admitted
// job has at most K-1 jobs ahead, so E(T) <= E(R_K) <= K*E(T); with
// rho_e = 1000 the queue is almost always full and E(R_K) is near K*E(T).
func TestHeavyLoadStaysFinite(t *testing.T) {
	q := Queue{Rate: 0.1 / 1e-4, Service: Service{Mean: 1, CV: 0.01}}
	rs, err := q.ResponseTimes(200)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range rs {
		K := float64(k + 1)
		if math.IsNaN(r) || r < 1 || r > K*(1+1e-9) {
			t.Fatalf("E(R_%d) = %g, want within [1, %g]", k+1, r, K)
		}
	}
	// rho_e = 1000: nearly every admitted job finds K-1 ahead
	if r := rs[199]; r < 199 {
		t.Errorf("E(R_200) = %g, want close to 200", r)
	}
}

func TestNoExternalArrivals(t *testing.T) {
	rs, err := Queue{Rate: 0, Service: Service{Mean: 3, CV: 1}}.ResponseTimes(5)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range rs {
		if r != 3 {
			t.Errorf("E(R_%d) = %g with no arrivals, want E(T) = 3", k+1, r)
		}
	}
}

func TestQueueBadInput(t *testing.T) {
	tests := []struct {
		q    Queue
		k    int
		path string
	}{
		{Queue{Rate: -1, Service: Service{Mean: 1, CV: 1}}, 3, "rate"},
		{Queue{Rate: math.NaN(), Service: Service{Mean: 1, CV: 1}}, 3, "rate"},
		{Queue{Rate: 1, Service: Service{Mean: 0, CV: 1}}, 3, "service.mean"},
		{Queue{Rate: 1, Service: Service{Mean: 1, CV: -1}}, 3, "service.cv"},
		{Queue{Rate: 1, Service: Service{Mean: 1, CV: math.Inf(1)}}, 3, "service.cv"},
		{Queue{Rate: 1, Service: Service{Mean: 1, CV: 1}}, 0, "max_k"},
		{Queue{Rate: 1, Service: Service{Mean: 1, CV: 1}}, MaxK + 1, "max_k"},
	}
	for _, tc := range tests {
		_, err := tc.q.ResponseTimes(tc.k)
		wantField(t, err, tc.path)
	}
}
