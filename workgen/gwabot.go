package workgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// gwa-bot: bag-of-tasks requests after the Grid Workloads Archive model
// (Iosup et al.), with the source's ch.5 parameters (its Table 5.2,
// docs/workloads.md §3). The Weibull pairs (alpha, beta) and (a, b) are
// read as (scale, shape); inter-arrivals and task durations are seconds.

func init() {
	models["gwa-bot"] = model{params: []Param{
		{"days", "2", "span of the arrivals, days"},
		{"alpha_e", "1.7", "scale of the external Weibull inter-arrival, s (the source: 0.2-3.2)"},
		{"beta_e", "7.86", "shape of the external Weibull inter-arrival"},
		{"m_e", "90", "mean external task duration, s (the source: 60-110)"},
		{"alpha_l", "4", "scale of C128's local Weibull inter-arrival, s (the source: 2-10); C64 uses alpha_l+1, C256 alpha_l-1"},
		{"beta_l", "7.86", "shape of the local Weibull inter-arrival"},
		{"m_l", "90", "mean local task duration on C128, s (the source: 60-110); C64 uses m_l-1, C256 m_l+1"},
		{"sigma", "6.1", "standard deviation of the normal task duration, s"},
		{"tasks_a", "1.76", "scale of the Weibull tasks per request (rounded up)"},
		{"tasks_b", "2.11", "shape of the Weibull tasks per request"},
		{"low_share", "0.5", "share of low-urgency external requests (deadline ratio N(4,1)); the rest high (N(2,1))"},
		{"external_class", "suspendable", "preemption class of the external requests"},
		{"external_kind", "deadline", "deadline: each external request is due at arrival + ratio x duration; best-effort: queued without a deadline (cancellable or suspendable classes only), the urgency still drawn (the admission threshold D of docs/models.md §4 follows from it)"},
		{"memory", "1024", "memory of each task's VM, MB (1-1024; the hosts have 1024): what a suspension or resumption costs under the overhead model (docs/models.md §2), which the source does not charge"},
		localNotice,
		{"moldable", "false", "reshape a request of more tasks than the smallest cluster's hosts to that width, longer in proportion"},
	}, generate: generateGWABot, multi: true}
}

// bagStream is one arrival stream of bags of tasks.
type bagStream struct {
	alpha, beta float64 // Weibull inter-arrival: scale (s), shape
	mean        float64 // mean task duration, s
}

type gwaSetup struct {
	span           float64 // s
	ext            bagStream
	local          [3]bagStream // C64, C128, C256
	sigma          float64
	tasksA, tasksB float64
	lowShare       float64
	class          scheduler.Class
	bestEffort     bool  // external_kind=best-effort: no deadline
	memory         int64 // MB of each VM
	notice         delay
	moldable       bool
}

func readGWABot(v values) (gwaSetup, error) {
	var s gwaSetup
	var err error
	get := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	var days, alphaL, betaL, mL float64
	var class, kind, moldable string
	get(func() (e error) { days, e = v.float("days", 0.001, 3650); return })
	get(func() (e error) { s.ext.alpha, e = v.float("alpha_e", 0.001, 1e6); return })
	get(func() (e error) { s.ext.beta, e = v.float("beta_e", 0.05, 100); return })
	get(func() (e error) { s.ext.mean, e = v.float("m_e", 1, 1e7); return })
	get(func() (e error) { alphaL, e = v.float("alpha_l", 1.001, 1e6); return })
	get(func() (e error) { betaL, e = v.float("beta_l", 0.05, 100); return })
	get(func() (e error) { mL, e = v.float("m_l", 2, 1e7); return })
	get(func() (e error) { s.sigma, e = v.float("sigma", 0, 1e7); return })
	get(func() (e error) { s.tasksA, e = v.float("tasks_a", 0.001, 1e6); return })
	get(func() (e error) { s.tasksB, e = v.float("tasks_b", 0.05, 100); return })
	get(func() (e error) { s.lowShare, e = v.float("low_share", 0, 1); return })
	get(func() (e error) {
		class, e = v.choice("external_class", "cancellable", "suspendable", "migratable", "non-preemptable")
		return
	})
	get(func() (e error) { kind, e = v.choice("external_kind", "deadline", "best-effort"); return })
	get(func() (e error) { mem, e := v.int("memory", 1, 1024); s.memory = int64(mem); return e })
	get(func() (e error) { s.notice, e = v.delay("local_notice"); return })
	get(func() (e error) { moldable, e = v.choice("moldable", "false", "true"); return })
	if err != nil {
		return s, err
	}
	s.bestEffort = kind == "best-effort"
	if s.bestEffort && class != string(scheduler.Cancellable) && class != string(scheduler.Suspendable) {
		return s, fmt.Errorf("external_kind=best-effort with external_class=%q: a best-effort request is cancellable or suspendable: %w", class, ErrBadParam)
	}
	s.span = days * day.Seconds()
	s.class, s.moldable = scheduler.Class(class), moldable == "true"
	s.local = [3]bagStream{{alphaL + 1, betaL, mL - 1}, {alphaL, betaL, mL}, {alphaL - 1, betaL, mL + 1}}
	if s.span/weibullMean(s.ext) > maxRequests {
		return s, fmt.Errorf("alpha_e=%q with days=%q: more than %d requests: %w", v["alpha_e"], v["days"], maxRequests, ErrBadParam)
	}
	if s.span/weibullMean(s.local[2]) > maxRequests {
		return s, fmt.Errorf("alpha_l=%q with days=%q: more than %d requests: %w", v["alpha_l"], v["days"], maxRequests, ErrBadParam)
	}
	return s, nil
}

// maxRequests bounds the expected size of one stream.
const maxRequests = 2_000_000

func weibullMean(b bagStream) float64 { m, _ := weibullMoments(b.alpha, b.beta); return m }

// tasks draws the number of tasks: a Weibull draw rounded up, at least 1.
func (s *gwaSetup) tasks(r *rand.Rand) int {
	return max(1, int(math.Ceil(weibull(r, s.tasksA, s.tasksB))))
}

// tasksPMF is the exact distribution of tasks: P(n) = F(n) - F(n-1) with
// F the Weibull distribution function.
func (s *gwaSetup) tasksPMF() map[int]float64 {
	p := map[int]float64{}
	cdf := func(x float64) float64 { return 1 - math.Exp(-math.Pow(x/s.tasksA, s.tasksB)) }
	for n := 1; ; n++ {
		p[n] = cdf(float64(n)) - cdf(float64(n-1))
		if 1-cdf(float64(n)) < 1e-15 {
			return p
		}
	}
}

// draw draws one request of stream st: tasks, task duration and the time
// since the request before (seconds).
func (s *gwaSetup) draw(r *rand.Rand, st bagStream) (int, float64, float64) {
	n := s.tasks(r)
	d := max(0.001, normal(r, st.mean, s.sigma))
	return n, d, weibull(r, st.alpha, st.beta)
}

// stream draws the requests of one stream over the span, as leases of
// tasks one-core VMs for the task duration.
func (s *gwaSetup) stream(r *rand.Rand, st bagStream, prefix string) []scheduler.Request {
	var reqs []scheduler.Request
	t := 0.0
	for {
		n, d, gap := s.draw(r, st)
		t += gap
		if t >= s.span {
			return reqs
		}
		reqs = append(reqs, scheduler.Request{Name: prefix + strconv.Itoa(len(reqs)+1), Arrival: millis(t),
			Duration: millis(d), VMs: n, CPU: 100, Memory: s.memory})
	}
}

func generateGWABot(seed uint64, v values) (*Workload, error) {
	s, err := readGWABot(v)
	if err != nil {
		return nil, err
	}
	r := newRand("gwa-bot", seed)
	w := &Workload{Requests: s.stream(r, s.ext, "E")}
	narrow := das2Clusters[0].hosts
	for i := range w.Requests {
		req := &w.Requests[i]
		if s.moldable && req.VMs > narrow {
			req.Duration *= time.Duration((req.VMs + narrow - 1) / narrow)
			req.VMs = narrow
		}
		mu := 2.0
		if r.Float64() < s.lowShare {
			mu = 4
		}
		ratio := max(1, normal(r, mu, 1)) // drawn for every kind: the rest of the stream stays the same
		req.Class, req.Origin = s.class, scheduler.External
		if s.bestEffort {
			req.Kind = scheduler.BestEffort
			continue
		}
		req.Kind = scheduler.Deadline
		req.Deadline = req.Arrival + time.Duration(math.Ceil(ratio*float64(req.Duration)/1e6))*time.Millisecond
	}
	for i, c := range das2Clusters {
		cl := newCluster(c.name, c.hosts, c.mips)
		cl.Requests = s.stream(r, s.local[i], c.name+"-")
		for j := range cl.Requests {
			cl.Requests[j].VMs = min(cl.Requests[j].VMs, c.hosts)
			localLease(&cl.Requests[j], s.notice, r)
		}
		w.Clusters = append(w.Clusters, cl)
	}
	return w, nil
}
