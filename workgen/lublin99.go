package workgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// lublin99: the Lublin-Feitelson model of rigid parallel jobs
// (docs/workloads.md §1), set up as the source's ch.3 experiments.
//
// The model's constants are the defaults of the reference C code
// "lublin99" (m_lublin99.c, Parallel Workloads Archive; U. Lublin and
// D. G. Feitelson, "The workload on parallel supercomputers: modeling the
// characteristics of rigid jobs", J. Parallel Distrib. Comput. 63(11),
// pp. 1105-1122, 2003), one set for interactive and one for batch jobs:
// SERIAL_PROB, POW2_PROB, ULOW, UPROB for the size; A1, B1, A2, B2, PA,
// PB for the run time; ANUM, BNUM for the daily cycle. UHI is log2 of the
// machine's size, as in the code. Three parts are bora's (docs/workloads.md
// §1 says why): UMED is solved for the target mean size, the run times are
// scaled to the target mean and capped, and the inter-arrival process is a
// gamma renewal process bent by the daily cycle.
type lublinType struct {
	serial, pow2, ulow, uprob float64 // size: SERIAL_PROB, POW2_PROB, ULOW, UPROB
	a1, b1, a2, b2, pa, pb    float64 // log run time: hyper-gamma A1, B1, A2, B2, PA, PB
}

var (
	lublinInteractive = lublinType{serial: 0.244, pow2: 0.576, ulow: 0.8, uprob: 0.86,
		a1: 4.2, b1: 0.94, a2: 312, b2: 0.03, pa: -0.0054, pb: 0.78}
	lublinBatch = lublinType{serial: 0.2927, pow2: 0.7867, ulow: 1.2, uprob: 0.7,
		a1: 6.57, b1: 0.823, a2: 639.1, b2: 0.0156, pa: -0.003, pb: 0.6986}
)

// The daily cycle of arrivals: the time of day, in half-hour slots from
// midnight, is gamma with shape ANUM and scale BNUM (the code's defaults).
const lublinANUM, lublinBNUM = 8.1737, 3.9631

func init() {
	models["lublin99"] = model{params: []Param{
		{"requests", "3000", "number of requests"},
		{"days", "14", "mean span of the arrivals, days: the mean inter-arrival is days/requests"},
		{"hosts", "32", "single-core hosts of 1024 MB; UHI = log2(hosts) and sizes are capped at it"},
		{"mean_vms", "4", "mean size the model is scaled to (by solving UMED)"},
		{"mean_duration", "2h", "mean run time the model is scaled to (a factor on every run time)"},
		{"max_duration", "24h", "cap on a run time, after scaling"},
		{"interactive", "0.5", "share of interactive jobs (the rest are batch)"},
		{"arrival_shape", "0.5", "shape of the gamma inter-arrival time before the daily cycle (1 = Poisson)"},
		{"local_share", "0.3333", "share of the requests that are local (the source: 1,000 of 3,000, or 20-70 %)"},
		{"local_notice", "0", "notice of local leases: 0 = immediate, else an advance reservation that far ahead: a length (24h), exp(MEAN) or uniform(LO,HI)"},
		{"deadline_ratio_min", "2", "deadline = arrival + duration x ratio, ratio uniform in [min, max] (migratable, non-preemptable)"},
		{"deadline_ratio_max", "4", "see deadline_ratio_min"},
	}, generate: generateLublin}
}

// lublinSetup is lublin99's parameters, read and checked.
type lublinSetup struct {
	requests, hosts       int
	meanIA                float64 // seconds, operational time
	meanVMs               float64
	meanDur, maxDur       float64 // seconds
	interactive, arrShape float64
	localShare            float64
	notice                delay
	ratioLo, ratioHi      float64
	sizes                 [2]logUniform2 // interactive, batch
	scale                 float64        // run time factor
}

func readLublin(v values) (lublinSetup, error) {
	var s lublinSetup
	var err error
	get := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	var days float64
	var meanDur, maxDur time.Duration
	get(func() (e error) { s.requests, e = v.int("requests", 1, 10_000_000); return })
	get(func() (e error) { days, e = v.float("days", 0.001, 36500); return })
	get(func() (e error) { s.hosts, e = v.int("hosts", 2, 1<<20); return })
	get(func() (e error) { s.meanVMs, e = v.float("mean_vms", 1, 1<<20); return })
	get(func() (e error) { meanDur, e = v.duration("mean_duration", time.Second, 365*day); return })
	get(func() (e error) { maxDur, e = v.duration("max_duration", time.Second, 3650*day); return })
	get(func() (e error) { s.interactive, e = v.float("interactive", 0, 1); return })
	get(func() (e error) { s.arrShape, e = v.float("arrival_shape", 0.05, 1000); return })
	get(func() (e error) { s.localShare, e = v.float("local_share", 0, 1); return })
	get(func() (e error) { s.notice, e = v.delay("local_notice"); return })
	get(func() (e error) { s.ratioLo, e = v.float("deadline_ratio_min", 1, 1000); return })
	get(func() (e error) { s.ratioHi, e = v.float("deadline_ratio_max", 1, 1000); return })
	if err != nil {
		return s, err
	}
	if s.ratioHi < s.ratioLo {
		return s, fmt.Errorf("deadline_ratio_max=%q: below deadline_ratio_min %g: %w", v["deadline_ratio_max"], s.ratioLo, ErrBadParam)
	}
	if maxDur < meanDur {
		return s, fmt.Errorf("max_duration=%q: below mean_duration %s: %w", v["max_duration"], meanDur, ErrBadParam)
	}
	s.meanIA = days * day.Seconds() / float64(s.requests)
	s.meanDur, s.maxDur = meanDur.Seconds(), maxDur.Seconds()
	if err := s.solveSizes(v); err != nil {
		return s, err
	}
	if err := s.solveScale(v); err != nil {
		return s, err
	}
	return s, nil
}

// sizeDist is one job type's size distribution with the given UMED.
func (s *lublinSetup) sizeDist(t lublinType, umed float64) logUniform2 {
	uhi := math.Log2(float64(s.hosts))
	return logUniform2{Low: min(t.ulow, uhi), Med: umed, High: uhi, Q: t.uprob,
		POne: t.serial, PPow2: t.pow2, RoundPow2: true, Cap: s.hosts}
}

// sizeMoments are the exact mean and variance of the size over both types.
func (s *lublinSetup) sizePMF() map[int]float64 {
	p := map[int]float64{}
	for i, w := range []float64{s.interactive, 1 - s.interactive} {
		for n, q := range s.sizes[i].pmf() {
			p[n] += w * q
		}
	}
	return p
}

// solveSizes finds UMED (one value for both types, between the larger
// ULOW and UHI) that gives the mean size mean_vms, by bisection: the mean
// grows with UMED.
func (s *lublinSetup) solveSizes(v values) error {
	uhi := math.Log2(float64(s.hosts))
	lo := min(max(lublinInteractive.ulow, lublinBatch.ulow), uhi)
	mean := func(umed float64) float64 {
		s.sizes = [2]logUniform2{s.sizeDist(lublinInteractive, umed), s.sizeDist(lublinBatch, umed)}
		m, _ := pmfMoments(s.sizePMF())
		return m
	}
	mlo, mhi := mean(lo), mean(uhi)
	if s.meanVMs < mlo || s.meanVMs > mhi {
		return fmt.Errorf("mean_vms=%q: the model reaches only %.2f to %.2f VMs on %d hosts: %w", v["mean_vms"], mlo, mhi, s.hosts, ErrBadParam)
	}
	hi := uhi
	for range 50 {
		mid := (lo + hi) / 2
		if mean(mid) < s.meanVMs {
			lo = mid
		} else {
			hi = mid
		}
	}
	mean((lo + hi) / 2)
	return nil
}

// runMoments are the raw moments E[D^k], k = 1..4, of the run time
// D = min(scale e^X, cap) over both types and all sizes, X hyper-gamma.
func (s *lublinSetup) runMoments(scale float64) [5]float64 {
	var m [5]float64
	for i, t := range []lublinType{lublinInteractive, lublinBatch} {
		w := []float64{s.interactive, 1 - s.interactive}[i]
		c1 := cappedExpGamma(t.a1, t.b1, scale, s.maxDur)
		c2 := cappedExpGamma(t.a2, t.b2, scale, s.maxDur)
		for n, q := range s.sizes[i].pmf() {
			p := lublinMix(t, n)
			for k := 1; k <= 4; k++ {
				m[k] += w * q * (p*c1[k] + (1-p)*c2[k])
			}
		}
	}
	return m
}

// lublinMix is the probability that a job of n VMs draws its log run
// time from the first gamma: PA n + PB, within [0, 1].
func lublinMix(t lublinType, n int) float64 {
	return min(1, max(0, t.pa*float64(n)+t.pb))
}

// cappedExpGamma are the raw moments E[Y^k], k = 1..4, of
// Y = min(scale e^X, cap) with X ~ Gamma(shape, scale b), integrated
// numerically (Simpson's rule) below t = ln(cap/scale), plus cap^k times
// the mass above t.
func cappedExpGamma(a, b, scale, cap float64) [5]float64 {
	var m [5]float64
	t := math.Log(cap / scale)
	below := 0.0
	if t > 0 {
		const n = 4000
		h := t / n
		lg, _ := math.Lgamma(a)
		norm := lg + a*math.Log(b)
		for i := 1; i <= n; i++ { // the density is 0 at x = 0 (shape > 1)
			x := float64(i) * h
			w := 2.0
			switch {
			case i == n:
				w = 1
			case i%2 == 1:
				w = 4
			}
			f := w * h / 3 * math.Exp((a-1)*math.Log(x)-x/b-norm)
			below += f
			y := scale * math.Exp(x)
			m[1] += f * y
			m[2] += f * y * y
			m[3] += f * y * y * y
			m[4] += f * y * y * y * y
		}
	}
	above := max(0, 1-below)
	for k := 1; k <= 4; k++ {
		m[k] += above * math.Pow(cap, float64(k))
	}
	return m
}

// solveScale finds the factor on e^X that gives the mean run time
// mean_duration under the cap, by bisection on its logarithm.
func (s *lublinSetup) solveScale(v values) error {
	lo, hi := -30.0, 30.0
	if m := s.runMoments(math.Exp(hi)); m[1] < s.meanDur {
		return fmt.Errorf("mean_duration=%q: not reachable under max_duration: %w", v["mean_duration"], ErrBadParam)
	}
	for range 50 {
		mid := (lo + hi) / 2
		if s.runMoments(math.Exp(mid))[1] < s.meanDur {
			lo = mid
		} else {
			hi = mid
		}
	}
	s.scale = math.Exp((lo + hi) / 2)
	return nil
}

// job draws one job's size and run time (seconds, before rounding).
func (s *lublinSetup) job(r *rand.Rand) (int, float64) {
	i, t := 0, lublinInteractive
	if r.Float64() >= s.interactive {
		i, t = 1, lublinBatch
	}
	n := s.sizes[i].draw(r)
	var x float64
	if r.Float64() < lublinMix(t, n) {
		x = gammaDraw(r, t.a1, t.b1)
	} else {
		x = gammaDraw(r, t.a2, t.b2)
	}
	return n, min(s.scale*math.Exp(x), s.maxDur)
}

func generateLublin(seed uint64, v values) (*Workload, error) {
	s, err := readLublin(v)
	if err != nil {
		return nil, err
	}
	r := newRand("lublin99", seed)
	cycle := newDailyCycle(lublinANUM, lublinBNUM)
	reqs := make([]scheduler.Request, s.requests)
	op := 0.0
	for i := range reqs {
		n, d := s.job(r)
		op += gammaDraw(r, s.arrShape, s.meanIA/s.arrShape)
		reqs[i] = scheduler.Request{Name: strconv.Itoa(i + 1), Arrival: seconds(cycle.wall(op)),
			Duration: max(time.Second, seconds(d)), VMs: n, CPU: 100, Memory: 1024}
	}
	local := make([]bool, len(reqs))
	for _, i := range r.Perm(len(reqs))[:int(math.Round(s.localShare*float64(len(reqs))))] {
		local[i] = true
	}
	for i := range reqs {
		if local[i] {
			localLease(&reqs[i], s.notice, r)
		} else {
			externalLease(&reqs[i], externalClasses[r.IntN(len(externalClasses))], uniform(r, s.ratioLo, s.ratioHi))
		}
	}
	return &Workload{Hosts: s.hosts, HostCPU: 100, HostMemory: 1024, Requests: reqs}, nil
}

// externalClasses are the four preemption classes external requests are
// spread over.
var externalClasses = []scheduler.Class{scheduler.Cancellable, scheduler.Suspendable, scheduler.Migratable, scheduler.NonPreemptable}

// externalLease makes req an external lease of class c: a best-effort
// lease when c can be cancelled or suspended, else a deadline lease due
// at arrival + ratio x duration (docs/models.md §1: the deadline-bound
// classes). The deadline is rounded up to the millisecond.
func externalLease(req *scheduler.Request, c scheduler.Class, ratio float64) {
	req.Origin, req.Class = scheduler.External, c
	req.Kind = scheduler.BestEffort
	if c == scheduler.Migratable || c == scheduler.NonPreemptable {
		req.Kind = scheduler.Deadline
		req.Deadline = req.Arrival + time.Duration(math.Ceil(ratio*float64(req.Duration)/1e6))*time.Millisecond
	}
}

// localLease makes req a local lease: immediate when the notice is 0,
// else an advance reservation that starts a drawn notice after arrival.
func localLease(req *scheduler.Request, notice delay, r *rand.Rand) {
	req.Origin, req.Class = scheduler.Local, scheduler.NonPreemptable
	if notice.zero() {
		req.Kind = scheduler.Immediate
		return
	}
	req.Kind = scheduler.AdvanceReservation
	req.Start = req.Arrival + notice.draw(r)
}
