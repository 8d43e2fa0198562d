package workgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/bora-sched/bora/scheduler"
)

// das2: the DAS-2 multi-cluster model with the source's ch.4 parameters
// (its Table 4.2, docs/workloads.md §2): external requests at the
// gateway, local requests at C64, C128 and C256. Each stream has Weibull
// inter-arrivals, two-stage log-uniform sizes and log-normal durations.
//
// The Weibull columns are read as (scale, shape) in seconds: the Grid's
// (7.0, 1.1) then has the mean inter-arrival 7.0 Γ(1 + 1/1.1) = 6.75 s,
// 0.148/s (the source's 0.15/s), and C128's (1.6, 0.35) 1.6 Γ(1 + 1/0.35)
// = 8.05 s, 0.124/s (the source's local 0.12/s).

func init() {
	models["das2"] = model{params: []Param{
		{"days", "2", "span of the arrivals, days"},
		{"alpha_e", "7.0", "scale of the external Weibull inter-arrival, s (the source sweeps 3.8-7.0 with shape 0.5)"},
		{"beta_e", "1.1", "shape of the external Weibull inter-arrival"},
		{"m_e", "3.0", "middle point m of the external sizes' two-stage log-uniform (the source: 2.5-3.5)"},
		{"a_e", "4.2", "mean a of the log of the external duration (the source: 3.0-5.4)"},
		{"b", "1.7", "standard deviation b of the log of every duration"},
		{"alpha_c64", "2.0", "scale of C64's local Weibull inter-arrival, s (the source sweeps 0.1-7.0)"},
		{"alpha_c128", "1.6", "scale of C128's local Weibull inter-arrival, s (the source sweeps 0.08-6.0)"},
		{"alpha_c256", "1.2", "scale of C256's local Weibull inter-arrival, s (the source sweeps 0.06-4.5)"},
		{"beta_l", "0.35", "shape of the local Weibull inter-arrivals"},
		{"local_scale", "1", "factor on the three local scales alpha_c64, alpha_c128, alpha_c256 (one knob for the local rate: the source sweeps about 0.05-3.75 times the defaults)"},
		deadlineRatioMin, deadlineRatioMax,
		localNotice,
	}, generate: generateDAS2, multi: true}
}

// das2Stream is one arrival stream of das2.
type das2Stream struct {
	alpha, beta float64     // Weibull inter-arrival: scale (s), shape
	size        logUniform2 // VMs
	a, b        float64     // log-normal duration (s)
}

type das2Setup struct {
	span             float64
	ext              das2Stream
	local            [3]das2Stream
	ratioLo, ratioHi float64
	notice           delay
}

func readDAS2(v values) (das2Setup, error) {
	var s das2Setup
	var err error
	get := func(name string, dst *float64, lo, hi float64) {
		if err == nil {
			*dst, err = v.float(name, lo, hi)
		}
	}
	var days, mE, aE, b, betaL, scale float64
	var alpha [3]float64
	get("days", &days, 0.001, 3650)
	get("alpha_e", &s.ext.alpha, 0.001, 1e6)
	get("beta_e", &s.ext.beta, 0.05, 100)
	get("m_e", &mE, 0.8, 6)
	get("a_e", &aE, -10, 20)
	get("b", &b, 0, 5)
	get("alpha_c64", &alpha[0], 0.001, 1e6)
	get("alpha_c128", &alpha[1], 0.001, 1e6)
	get("alpha_c256", &alpha[2], 0.001, 1e6)
	get("beta_l", &betaL, 0.05, 100)
	get("local_scale", &scale, 0.001, 1000)
	get("deadline_ratio_min", &s.ratioLo, 1, 1000)
	get("deadline_ratio_max", &s.ratioHi, 1, 1000)
	if err == nil {
		s.notice, err = v.delay("local_notice")
	}
	if err != nil {
		return s, err
	}
	if s.ratioHi < s.ratioLo {
		return s, fmt.Errorf("deadline_ratio_max=%q: below deadline_ratio_min %g: %w", v["deadline_ratio_max"], s.ratioLo, ErrBadParam)
	}
	s.span = days * day.Seconds()
	s.ext.a, s.ext.b = aE, b
	s.ext.size = logUniform2{Low: 0.8, Med: mE, High: 6, Q: 0.9, POne: 0.2, PPow2: 0.5, Cap: das2Clusters[2].hosts}
	local := []struct{ m, h, a float64 }{{2.5, 6, 5.0}, {3.5, 7, 5.35}, {4.5, 8, 5.5}}
	for i, l := range local {
		s.local[i] = das2Stream{alpha: alpha[i] * scale, beta: betaL, a: l.a, b: b,
			size: logUniform2{Low: 0.8, Med: l.m, High: l.h, Q: 0.9, POne: 0.3, PPow2: 0.6, Cap: das2Clusters[i].hosts}}
	}
	names := []string{"alpha_e", "alpha_c64", "alpha_c128", "alpha_c256"}
	for i, st := range append([]das2Stream{s.ext}, s.local[:]...) {
		if m, _ := weibullMoments(st.alpha, st.beta); s.span/m > maxRequests {
			return s, fmt.Errorf("%s=%q with local_scale=%q, days=%q: more than %d requests: %w", names[i], v[names[i]], v["local_scale"], v["days"], maxRequests, ErrBadParam)
		}
	}
	return s, nil
}

// draw draws one request of st: VMs, duration and the time since the one
// before (seconds).
func (st das2Stream) draw(r *rand.Rand) (int, float64, float64) {
	n := st.size.draw(r)
	d := logNormal(r, st.a, st.b)
	return n, d, weibull(r, st.alpha, st.beta)
}

// stream draws st's requests over the span.
func (s *das2Setup) stream(r *rand.Rand, st das2Stream, prefix string) []scheduler.Request {
	var reqs []scheduler.Request
	t := 0.0
	for {
		n, d, gap := st.draw(r)
		t += gap
		if t >= s.span {
			return reqs
		}
		reqs = append(reqs, scheduler.Request{Name: prefix + strconv.Itoa(len(reqs)+1), Arrival: millis(t),
			Duration: max(millis(0.001), millis(d)), VMs: n, CPU: 100, Memory: 1024})
	}
}

func generateDAS2(seed uint64, v values) (*Workload, error) {
	s, err := readDAS2(v)
	if err != nil {
		return nil, err
	}
	r := newRand("das2", seed)
	w := &Workload{Requests: s.stream(r, s.ext, "G")}
	for i := range w.Requests {
		externalLease(&w.Requests[i], externalClasses[r.IntN(len(externalClasses))], uniform(r, s.ratioLo, s.ratioHi))
	}
	for i, c := range das2Clusters {
		cl := newCluster(c.name, c.hosts, c.mips)
		cl.Requests = s.stream(r, s.local[i], c.name+"-")
		for j := range cl.Requests {
			localLease(&cl.Requests[j], s.notice, r)
		}
		w.Clusters = append(w.Clusters, cl)
	}
	return w, nil
}
