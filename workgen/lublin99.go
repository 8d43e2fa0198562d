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
// The constants are the defaults of the reference C code m_lublin99.c
// (U. Lublin and D. G. Feitelson, "The workload on parallel
// supercomputers: modeling the characteristics of rigid jobs", J. Parallel
// Distrib. Comput. 63(11), pp. 1105-1122, 2003; the code is on the
// Parallel Workloads Archive's models page), with INCLUDE_JOBS_TYPE on:
// one set for batch and one for interactive jobs. The model is ported as
// the code runs it:
//   - size: serial with SERIAL_PROB; else par is two-stage uniform on
//     [ULOW, UMED] (with UPROB) or [UMED, UHI]; a power of two
//     2^round(par) with POW2_PROB, else round(2^par);
//   - run time: e^X, X hyper-gamma: Gamma(A1, B1) with probability
//     p = PA nodes + PB (kept in [0, 1]), else Gamma(A2, B2), drawn again
//     while X > 12 (TOO_MUCH_TIME);
//   - arrivals: each type its own stream; the rush-hour inter-arrival is
//     e^Y, Y ~ Gamma(AARR x ARAR, BARR) drawn again while Y > 13
//     (TOO_MUCH_ARRIVE_TIME), spent over the day's half-hour buckets, each
//     weighted by the mass of Gamma(ANUM, BNUM) on [i-0.5, i+0.5] for
//     i = 11..58 (bucket (i-1) mod 48, CYCLIC_DAY_START 11), starting at
//     midnight; the next job is of the type whose stream comes first.
//
// Scaling to the source's setup (docs/workloads.md §1 says why): UHI is
// log2(hosts) for both types (the code has 7 and 5.5 for 128 nodes; 1.5
// below log2(32) the model cannot reach a mean of 4 VMs); UMED keeps the
// code's distance below UHI (2 and 2.5) plus one shift, solved so that the
// mean size is mean_vms; run times and rush-hour inter-arrivals are
// multiplied by the factors that give mean_duration and days/requests.
type lublinType struct {
	name                         string
	serial, pow2, ulow, uprob    float64 // SERIAL_PROB, POW2_PROB, ULOW, UPROB
	uhiBelow, umedBelow          float64 // log2(hosts) - UHI, UHI - UMED
	a1, b1, a2, b2, pa, pb       float64 // A1, B1, A2, B2, PA, PB
	aarr, barr, anum, bnum, arar float64 // AARR, BARR, ANUM, BNUM, ARAR
}

// The code's two parameter sets; index 0 is batch, 1 interactive, the
// order in which the code starts the two arrival streams.
var lublinTypes = [2]lublinType{
	{name: "batch", serial: 0.2927, pow2: 0.6686, ulow: 1.2, uprob: 0.875, umedBelow: 2, // the code: UHI 7, UMED 5
		a1: 6.57, b1: 0.823, a2: 639.1, b2: 0.0156, pa: -0.003, pb: 0.6986,
		aarr: 6.0415, barr: 0.8531, anum: 6.1271, bnum: 5.2740, arar: 1.0519},
	{name: "interactive", serial: 0.1541, pow2: 0.625, ulow: 1, uprob: 0.705, umedBelow: 2.5, // the code: UHI 5.5, UMED 3
		a1: 3.8351, b1: 0.6605, a2: 7.073, b2: 0.6856, pa: -0.0118, pb: 0.9156,
		aarr: 6.5510, barr: 0.6621, anum: 8.9186, bnum: 3.6680, arar: 0.9797},
}

// The code's truncations: log run times above 12 (e^12 s, about two
// days) and log inter-arrivals above 13 are drawn again.
const lublinMaxLogRun, lublinMaxLogArrive = 12, 13

func init() {
	models["lublin99"] = model{params: []Param{
		{"requests", "3000", "number of requests"},
		{"days", "14", "mean span of the arrivals, days: the mean inter-arrival is days/requests"},
		{"hosts", "32", "single-core hosts of 1024 MB; batch UHI = log2(hosts), sizes capped at it"},
		{"mean_vms", "4", "mean size the model is scaled to (by shifting UMED)"},
		{"mean_duration", "2h", "mean run time the model is scaled to (a factor on every run time)"},
		{"local_share", "0.3333", "share of the requests that are local (the source: 1,000 of 3,000, or 20-70 %)"},
		localNotice,
		{"deadline_share", "0.5", "share of the external requests that are deadline-bound (migratable or non-preemptable, half each); the rest are best-effort (cancellable or suspendable, half each)"},
		deadlineRatioMin, deadlineRatioMax,
	}, generate: generateLublin}
}

// lublinSetup is lublin99's parameters, read and checked, and the
// scaling they fix.
type lublinSetup struct {
	requests, hosts  int
	meanIA           float64 // seconds
	meanVMs, meanDur float64
	localShare       float64
	deadlineShare    float64
	notice           delay
	ratioLo, ratioHi float64
	sizes            [2]logUniform2 // by type
	runScale         float64        // factor on e^X
	arrScale         float64        // factor on e^Y
	share            [2]float64     // share of the jobs of each type
	cycles           [2]dailyCycle
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
	var meanDur time.Duration
	get(func() (e error) { s.requests, e = v.int("requests", 1, maxRequests); return })
	get(func() (e error) { days, e = v.float("days", 0.001, 36500); return })
	get(func() (e error) { s.hosts, e = v.int("hosts", 4, 4096); return })
	get(func() (e error) { s.meanVMs, e = v.float("mean_vms", 1, 1<<20); return })
	get(func() (e error) { meanDur, e = v.duration("mean_duration", time.Second, 365*day); return })
	get(func() (e error) { s.localShare, e = v.float("local_share", 0, 1); return })
	get(func() (e error) { s.notice, e = v.delay("local_notice"); return })
	get(func() (e error) { s.deadlineShare, e = v.float("deadline_share", 0, 1); return })
	get(func() (e error) { s.ratioLo, e = v.float("deadline_ratio_min", 1, 1000); return })
	get(func() (e error) { s.ratioHi, e = v.float("deadline_ratio_max", 1, 1000); return })
	if err != nil {
		return s, err
	}
	if s.ratioHi < s.ratioLo {
		return s, fmt.Errorf("deadline_ratio_max=%q: below deadline_ratio_min %g: %w", v["deadline_ratio_max"], s.ratioLo, ErrBadParam)
	}
	s.meanIA = days * day.Seconds() / float64(s.requests)
	s.meanDur = meanDur.Seconds()
	// Arrivals: a stream's long-run mean inter-arrival is its mean e^Y
	// (the daily cycle moves arrivals within a day, not across days), so
	// the streams' rates are in the ratio of 1/E[e^Y], and one factor on
	// both gives the mean inter-arrival meanIA of the merged stream.
	var rate [2]float64
	for i, t := range lublinTypes {
		rate[i] = 1 / truncExpGamma(t.aarr*t.arar, t.barr, lublinMaxLogArrive)[1]
		s.cycles[i] = newLublinCycle(t.anum, t.bnum)
	}
	s.arrScale = s.meanIA * (rate[0] + rate[1])
	s.share = [2]float64{rate[0] / (rate[0] + rate[1]), rate[1] / (rate[0] + rate[1])}
	if err := s.solveSizes(v); err != nil {
		return s, err
	}
	s.runScale = s.meanDur / s.runMoments(1)[1]
	return s, nil
}

// sizeDist is one type's size distribution with UMED shifted by delta.
func (s *lublinSetup) sizeDist(t lublinType, delta float64) logUniform2 {
	uhi := math.Log2(float64(s.hosts))
	umed := min(max(uhi-t.umedBelow+delta, t.ulow), uhi)
	return logUniform2{Low: t.ulow, Med: umed, High: uhi, Q: t.uprob,
		POne: t.serial, PPow2: t.pow2, RoundPow2: true, Cap: s.hosts}
}

// sizePMF is the exact distribution of the size over both types.
func (s *lublinSetup) sizePMF() map[int]float64 {
	p := map[int]float64{}
	for i := range lublinTypes {
		for n, q := range s.sizes[i].pmf() {
			p[n] += s.share[i] * q
		}
	}
	return p
}

// solveSizes finds the shift of UMED that gives the mean size mean_vms,
// by bisection: the mean grows with the shift.
func (s *lublinSetup) solveSizes(v values) error {
	mean := func(delta float64) float64 {
		for i, t := range lublinTypes {
			s.sizes[i] = s.sizeDist(t, delta)
		}
		m, _ := pmfMoments(s.sizePMF())
		return m
	}
	lo, hi := -20.0, 20.0 // UMED pinned at ULOW and at UHI
	if mlo, mhi := mean(lo), mean(hi); s.meanVMs < mlo || s.meanVMs > mhi {
		return fmt.Errorf("mean_vms=%q: the model reaches only %.2f to %.2f VMs on %d hosts: %w", v["mean_vms"], mlo, mhi, s.hosts, ErrBadParam)
	}
	for range 60 {
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
// D = scale e^X over both types and all sizes.
func (s *lublinSetup) runMoments(scale float64) [5]float64 {
	var m [5]float64
	for i := range lublinTypes {
		mi := s.typeRunMoments(i, scale)
		for k := 1; k <= 4; k++ {
			m[k] += s.share[i] * mi[k]
		}
	}
	return m
}

// typeRunMoments are runMoments for the jobs of type i.
func (s *lublinSetup) typeRunMoments(i int, scale float64) [5]float64 {
	var m [5]float64
	t := lublinTypes[i]
	c1 := truncExpGamma(t.a1, t.b1, lublinMaxLogRun)
	c2 := truncExpGamma(t.a2, t.b2, lublinMaxLogRun)
	for n, q := range s.sizes[i].pmf() {
		p := lublinMix(t, n)
		for k := 1; k <= 4; k++ {
			m[k] += q * math.Pow(scale, float64(k)) * (p*c1[k] + (1-p)*c2[k])
		}
	}
	return m
}

// lublinMix is the probability that a job of n nodes draws its log run
// time from the first gamma: PA n + PB, kept in [0, 1].
func lublinMix(t lublinType, n int) float64 {
	return min(1, max(0, t.pa*float64(n)+t.pb))
}

// truncExpGamma are the raw moments E[e^(kX)], k = 1..4, of X ~
// Gamma(shape a, scale b) conditioned on X <= top (the code draws again
// above it), integrated numerically by Simpson's rule.
func truncExpGamma(a, b, top float64) [5]float64 {
	var m [5]float64
	const n = 4000
	h := top / n
	lg, _ := math.Lgamma(a)
	norm := lg + a*math.Log(b)
	mass := 0.0
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
		mass += f
		y := math.Exp(x)
		m[1] += f * y
		m[2] += f * y * y
		m[3] += f * y * y * y
		m[4] += f * y * y * y * y
	}
	for k := 1; k <= 4; k++ {
		m[k] /= mass
	}
	return m
}

// truncGamma draws X ~ Gamma(a, b) again until X <= top.
func truncGamma(r *rand.Rand, a, b, top float64) float64 {
	for {
		if x := gammaDraw(r, a, b); x <= top {
			return x
		}
	}
}

// newLublinCycle is the code's daily cycle: bucket (i-1) mod 48 weighted
// by the mass of Gamma(anum, bnum) on [i-0.5, i+0.5], i = 11..58.
func newLublinCycle(anum, bnum float64) dailyCycle {
	w := make([]float64, cycleSlots)
	const steps = 64
	for i := 11; i < cycleSlots+11; i++ {
		mass := 0.0
		for j := 0; j < steps; j++ {
			mass += gammaPDF(float64(i)-0.5+(float64(j)+0.5)/steps, anum, bnum) / steps
		}
		w[(i-1)%cycleSlots] = mass
	}
	return newCycle(w)
}

// lublinStream is one type's arrival stream: its clock in operational
// time and the wall time of its next job.
type lublinStream struct {
	op, next float64
}

// advance draws the stream's next inter-arrival (operational time) and
// moves its next job's wall time.
func (s *lublinSetup) advance(r *rand.Rand, i int, st *lublinStream) float64 {
	t := lublinTypes[i]
	gap := s.arrScale * math.Exp(truncGamma(r, t.aarr*t.arar, t.barr, lublinMaxLogArrive))
	st.op += gap
	st.next = s.cycles[i].wall(st.op)
	return gap
}

// job draws one job of type i: its size and run time (seconds).
func (s *lublinSetup) job(r *rand.Rand, i int) (int, float64) {
	t := lublinTypes[i]
	n := s.sizes[i].draw(r)
	a, b := t.a2, t.b2
	if r.Float64() < lublinMix(t, n) {
		a, b = t.a1, t.b1
	}
	return n, s.runScale * math.Exp(truncGamma(r, a, b, lublinMaxLogRun))
}

func generateLublin(seed uint64, v values) (*Workload, error) {
	s, err := readLublin(v)
	if err != nil {
		return nil, err
	}
	r := newRand("lublin99", seed)
	var streams [2]lublinStream
	for i := range streams {
		s.advance(r, i, &streams[i])
	}
	reqs := make([]scheduler.Request, s.requests)
	for k := range reqs {
		i := 1
		if streams[0].next < streams[1].next {
			i = 0
		}
		arrival := streams[i].next
		s.advance(r, i, &streams[i])
		n, d := s.job(r, i)
		reqs[k] = scheduler.Request{Name: strconv.Itoa(k + 1), User: lublinTypes[i].name, Arrival: seconds(arrival),
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
			externalLease(&reqs[i], s.externalClass(r), uniform(r, s.ratioLo, s.ratioHi))
		}
	}
	return &Workload{Hosts: s.hosts, HostCPU: 100, HostMemory: 1024, Requests: reqs}, nil
}

// externalClasses are the four preemption classes external requests are
// spread over.
var externalClasses = []scheduler.Class{scheduler.Cancellable, scheduler.Suspendable, scheduler.Migratable, scheduler.NonPreemptable}

// externalClass draws an external request's class: deadline-bound
// (migratable or non-preemptable) with probability deadlineShare, else
// best-effort (cancellable or suspendable), each pair half and half. At
// the default share of one half the four classes are equally likely, as
// in the source's setup.
func (s *lublinSetup) externalClass(r *rand.Rand) scheduler.Class {
	pair := [2]scheduler.Class{scheduler.Cancellable, scheduler.Suspendable}
	if r.Float64() < s.deadlineShare {
		pair = [2]scheduler.Class{scheduler.Migratable, scheduler.NonPreemptable}
	}
	return pair[r.IntN(2)]
}

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
