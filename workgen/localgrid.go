package workgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/workload"
)

// local-grid: local advance reservations over the 30-day SDSC Blue trace
// (docs/workloads.md §4), after the source's ch.6 generator.

func init() {
	models["local-grid"] = model{params: []Param{
		{"trace", "testdata/traces/sdsc-blue-30days.swf", "the external workload (any format bora reads), relative to the working directory"},
		{"rho", "0.15", "local share of the CPU hours (the source: 0.05-0.30), of the base rho_base"},
		{"rho_base", "workload", "what rho is a share of: workload = local + external CPU hours; capacity = hosts x days (what the shipped files hold)"},
		{"delta", "3h", "mean local duration; each drawn uniform in delta ± 30 min (the source: 1h-4h)"},
		{"theta", "medium", "local size class: small (1-24 VMs), medium (25-48) or large (49-72), uniform within it"},
		{"notice", "24h", "how far ahead local leases are booked: 0 = immediate, a length (24h), exp(MEAN) or uniform(LO,HI)"},
		{"days", "30", "span of the local requests, days"},
		{"hosts", "144", "single-core hosts of 1024 MB (the source: 144, 256, 512); sizes are capped at it"},
	}, generate: generateLocalGrid}
}

// The size classes of theta.
var thetaClasses = map[string][2]int{"small": {1, 24}, "medium": {25, 48}, "large": {49, 72}}

// The spread of local durations and inter-arrivals around their means.
const (
	deltaSpread  = 30 * time.Minute
	lambdaSpread = time.Hour
)

// localGridSetup is local-grid's parameters, read, with what they fix:
// the number of local requests and their mean inter-arrival lambda.
type localGridSetup struct {
	external     []scheduler.Request
	externalCPUh float64 // CPU hours of the external requests (real run times)
	rho          float64
	capacity     bool // rho of hosts x span, not of the workload
	delta        time.Duration
	sizeLo       int
	sizeHi       int
	notice       delay
	hosts        int
	span         time.Duration
	n            int           // local requests
	lambda       time.Duration // mean inter-arrival
}

func readLocalGrid(v values) (localGridSetup, error) {
	var s localGridSetup
	var err error
	get := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	var theta, base string
	var days float64
	get(func() (e error) { s.rho, e = v.float("rho", 0.001, 0.95); return })
	get(func() (e error) { base, e = v.choice("rho_base", "workload", "capacity"); return })
	get(func() (e error) { s.delta, e = v.duration("delta", deltaSpread+time.Second, 365*day); return })
	get(func() (e error) { theta, e = v.choice("theta", "small", "medium", "large"); return })
	get(func() (e error) { s.notice, e = v.delay("notice"); return })
	get(func() (e error) { days, e = v.float("days", 1, 36500); return })
	get(func() (e error) { s.hosts, e = v.int("hosts", 1, 1<<20); return })
	if err != nil {
		return s, err
	}
	s.span = time.Duration(days * float64(day))
	s.capacity = base == "capacity"
	c := thetaClasses[theta]
	s.sizeLo, s.sizeHi = min(c[0], s.hosts), min(c[1], s.hosts)
	t, err := workload.ReadFile(v["trace"], workload.DefaultOptions())
	if err != nil {
		return s, fmt.Errorf("trace=%q: %v: %w", v["trace"], err, ErrBadParam)
	}
	s.external = t.Requests
	for _, r := range s.external {
		s.externalCPUh += float64(r.VMs) * float64(r.CPU) / 100 * r.RealDuration().Hours()
	}
	// rho = L / (L + E): the local CPU hours L = rho E / (1 - rho); or
	// rho = L / (hosts x span). In requests of mean VMs x delta CPU hours
	// each.
	local := s.rho * s.externalCPUh / (1 - s.rho)
	if s.capacity {
		local = s.rho * float64(s.hosts) * s.span.Hours()
	}
	s.n = int(math.Round(local / (s.meanVMs() * s.delta.Hours())))
	if s.n < 1 {
		return s, fmt.Errorf("rho=%q: makes no local request over this trace: %w", v["rho"], ErrBadParam)
	}
	s.lambda = s.span / time.Duration(s.n)
	return s, nil
}

// meanVMs is the mean of the uniform size.
func (s *localGridSetup) meanVMs() float64 { return float64(s.sizeLo+s.sizeHi) / 2 }

// draw draws one local request: its size, its duration and the time
// since the one before (both rounded to the second). When lambda is below
// an hour the time since the one before may be negative, as in the
// source's files (local-work_15-dur_1h-size_1small has gaps down to
// -1515 s): the requests are sorted by arrival afterwards.
func (s *localGridSetup) draw(r *rand.Rand) (int, time.Duration, time.Duration) {
	vms := s.sizeLo + r.IntN(s.sizeHi-s.sizeLo+1)
	d := seconds(uniform(r, (s.delta - deltaSpread).Seconds(), (s.delta + deltaSpread).Seconds()))
	gap := seconds(uniform(r, (s.lambda - lambdaSpread).Seconds(), (s.lambda + lambdaSpread).Seconds()))
	return vms, d, gap
}

func generateLocalGrid(seed uint64, v values) (*Workload, error) {
	s, err := readLocalGrid(v)
	if err != nil {
		return nil, err
	}
	r := newRand("local-grid", seed)
	reqs := slices.Clone(s.external)
	var start time.Duration
	for i := range s.n {
		vms, d, gap := s.draw(r)
		start = max(0, start+gap)
		req := scheduler.Request{Name: "L" + strconv.Itoa(i+1), Arrival: start, Duration: d, VMs: vms,
			CPU: 100, Memory: 1024, Origin: scheduler.Local, Class: scheduler.NonPreemptable, Kind: scheduler.Immediate}
		if !s.notice.zero() {
			req.Kind, req.Start = scheduler.AdvanceReservation, start
			req.Arrival = max(0, start-s.notice.draw(r))
		}
		reqs = append(reqs, req)
	}
	workload.SortByArrival(reqs)
	return &Workload{Hosts: s.hosts, HostCPU: 100, HostMemory: 1024, Requests: reqs}, nil
}
