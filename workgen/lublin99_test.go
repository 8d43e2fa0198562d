package workgen

import (
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// lublin99 over 100k requests: size and run time against the model's
// exact moments; each type's arrival stream, in operational time (before
// the daily cycle), against e^Y's; the merged stream's mean inter-arrival.
func TestLublinMoments(t *testing.T) {
	params := map[string]string{"requests": strconv.Itoa(draws), "days": "466.67"} // 3,000 per 14 days
	w, err := Generate("lublin99", 7, params)
	if err != nil {
		t.Fatal(err)
	}
	s, err := readLublin(w.Params)
	if err != nil {
		t.Fatal(err)
	}
	// Size and run time by type (the jobs' User), each against its type's
	// exact moments: the mix of types varies from run to run with the
	// arrival streams, so the whole sample is checked type by type.
	var sizes, durs [2][]float64
	for _, r := range w.Requests {
		i := 1
		if r.User == "batch" {
			i = 0
		}
		sizes[i] = append(sizes[i], float64(r.VMs))
		durs[i] = append(durs[i], r.Duration.Seconds())
	}
	for i, typ := range lublinTypes {
		checkMoments(t, typ.name+" size", sizes[i], pmfRaw(s.sizes[i].pmf()))
		checkMoments(t, typ.name+" duration", durs[i], s.typeRunMoments(i, s.runScale))
	}
	// The setup's targets, over the model's mix: mean 4 VMs, mean 2 h.
	if m, _ := pmfMoments(s.sizePMF()); math.Abs(m-4) > 1e-6 {
		t.Errorf("model mean size %v, want 4", m)
	}
	if m := s.runMoments(s.runScale)[1]; math.Abs(m-7200) > 1e-6 {
		t.Errorf("model mean run time %v s, want 7200", m)
	}
	// The number of batch jobs: a renewal count over the span T has the
	// mean T/mu and the sd cv sqrt(T/mu).
	mb := raw(truncExpGamma(lublinTypes[0].aarr*lublinTypes[0].arar, lublinTypes[0].barr, lublinMaxLogArrive))
	muB, cvB := s.arrScale*mb.mean(), math.Sqrt(mb.variance())/mb.mean()
	span := w.Requests[len(w.Requests)-1].Arrival.Seconds()
	if want, sd := span/muB, cvB*math.Sqrt(span/muB); math.Abs(float64(len(sizes[0]))-want) > 3*sd {
		t.Errorf("%d batch jobs, want %.0f ± 3 x %.0f", len(sizes[0]), want, sd)
	}
	// Each stream: gaps scale x e^Y, Y ~ Gamma(AARR x ARAR, BARR) below 13.
	r := newRand("test", 8)
	for i, typ := range lublinTypes {
		var st lublinStream
		gaps := make([]float64, draws)
		for k := range gaps {
			gaps[k] = s.advance(r, i, &st)
		}
		m := raw(truncExpGamma(typ.aarr*typ.arar, typ.barr, lublinMaxLogArrive))
		for k := 1; k <= 4; k++ {
			m[k] *= math.Pow(s.arrScale, float64(k))
		}
		checkMoments(t, typ.name+" inter-arrival", gaps, m)
	}
	// Merged: 100k arrivals over about 466.67 days, a mean of 403.2 s.
	// The sum of the gaps of a stream of cv c has the sd c mean sqrt(n);
	// the batch stream's c (the larger) bounds it.
	cv := cvB
	if got := span / draws; math.Abs(got-403.2) > 3*cv*403.2/math.Sqrt(draws) {
		t.Errorf("mean inter-arrival %.1f s, want 403.2 ± %.1f", got, 3*cv*403.2/math.Sqrt(draws))
	}
}

// The daily cycle maps operational time to wall time and back, whole
// days onto whole days, and puts the arrivals' peak in the afternoon.
func TestLublinCycle(t *testing.T) {
	c := newLublinCycle(lublinTypes[1].anum, lublinTypes[1].bnum)
	for _, op := range []float64{0, 100, 43200, 86399, 86400, 3.5 * 86400} {
		if back := c.op(c.wall(op)); math.Abs(back-op) > 1e-6 {
			t.Errorf("op(wall(%v)) = %v", op, back)
		}
	}
	if w := c.wall(86400 * 2); w != 86400*2 {
		t.Errorf("wall(2 days) = %v", w)
	}
	// The busiest slot: the mode of Gamma(8.9186, 3.668) is 29.05,
	// bucket i = 29 is slot 28: 14:00-14:30.
	best, bestW := 0, 0.0
	for s := range cycleSlots {
		if w := c.cum[s+1] - c.cum[s]; w > bestW {
			best, bestW = s, w
		}
	}
	if best != 28 {
		t.Errorf("busiest slot %d, want 28 (14:00)", best)
	}
}

// The default workload: 3,000 requests, 1,000 of them local and
// immediate, the rest spread over the four classes, deadline-bound
// classes with a deadline at 2-4 x their duration after arrival.
func TestLublinSetup(t *testing.T) {
	w, err := Generate("lublin99", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Requests) != 3000 || w.Hosts != 32 || w.HostCPU != 100 || w.HostMemory != 1024 {
		t.Fatalf("%d requests on %d hosts of %d/%d, want 3000 on 32 of 100/1024", len(w.Requests), w.Hosts, w.HostCPU, w.HostMemory)
	}
	classes := map[scheduler.Class]int{}
	local := 0
	var last time.Duration
	for _, r := range w.Requests {
		if err := r.Validate(); err != nil {
			t.Fatalf("request %s: %v", r.Name, err)
		}
		if r.Arrival < last {
			t.Fatalf("request %s arrives at %s, before the one before (%s)", r.Name, r.Arrival, last)
		}
		last = r.Arrival
		if r.VMs > 32 || r.CPU != 100 || r.Memory != 1024 {
			t.Errorf("request %s: %d VMs of %d/%d", r.Name, r.VMs, r.CPU, r.Memory)
		}
		if r.Origin == scheduler.Local {
			local++
			if r.Kind != scheduler.Immediate {
				t.Errorf("local request %s is %s, want immediate", r.Name, r.Kind)
			}
			continue
		}
		classes[r.Class]++
		switch r.Class {
		case scheduler.Migratable, scheduler.NonPreemptable:
			ratio := float64(r.Deadline-r.Arrival) / float64(r.Duration)
			if r.Kind != scheduler.Deadline || ratio < 2 || ratio > 4+1/r.Duration.Seconds() {
				t.Errorf("request %s (%s): kind %s, deadline ratio %.3f, want deadline in [2, 4]", r.Name, r.Class, r.Kind, ratio)
			}
		default:
			if r.Kind != scheduler.BestEffort || r.Deadline != 0 {
				t.Errorf("request %s (%s): kind %s, deadline %s, want best-effort, none", r.Name, r.Class, r.Kind, r.Deadline)
			}
		}
	}
	if local != 1000 {
		t.Errorf("%d local requests, want 1000", local)
	}
	// 2,000 external requests over 4 classes: 500 each, binomial sd
	// sqrt(2000 x 0.25 x 0.75) = 19.4; 3 sd = 58.
	for _, c := range externalClasses {
		if n := classes[c]; n < 442 || n > 558 {
			t.Errorf("%d %s requests, want 500 ± 58", n, c)
		}
	}
	// The span: 14 days on average. The log-gamma inter-arrivals are
	// heavy-tailed: n arrivals take the time T with n = N_b(T) + N_i(T),
	// each renewal count of variance T cv^2 / mu, so T has the sd
	// sqrt(sum T cv^2 / mu) / sum(1/mu) (about 2 days here).
	s, _ := readLublin(w.Params)
	T := 14 * 86400.0
	var varN, rate float64
	for _, typ := range lublinTypes {
		m := raw(truncExpGamma(typ.aarr*typ.arar, typ.barr, lublinMaxLogArrive))
		mu, cv := s.arrScale*m.mean(), math.Sqrt(m.variance())/m.mean()
		varN += T * cv * cv / mu
		rate += 1 / mu
	}
	sd := math.Sqrt(varN) / rate / 86400
	if d := last.Hours() / 24; math.Abs(d-14) > 3*sd {
		t.Errorf("last arrival after %.2f days, want 14 ± 3 x %.2f", d, sd)
	}
}

// Local leases with a notice are advance reservations that far ahead.
func TestLublinNotice(t *testing.T) {
	w, err := Generate("lublin99", 3, map[string]string{"local_notice": "uniform(1h,3h)", "local_share": "0.5"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range w.Requests {
		if r.Origin != scheduler.Local {
			continue
		}
		n++
		if notice := r.Start - r.Arrival; r.Kind != scheduler.AdvanceReservation || notice < time.Hour || notice > 3*time.Hour {
			t.Errorf("local request %s: %s with notice %s, want an advance reservation 1-3 h ahead", r.Name, r.Kind, notice)
		}
	}
	if n != 1500 {
		t.Errorf("%d local requests, want 1500", n)
	}
}

func TestLublinBadParams(t *testing.T) {
	cases := []struct {
		params map[string]string
		name   string
		want   error
	}{
		{map[string]string{"requets": "10"}, "requets", ErrUnknownParam},
		{map[string]string{"requests": "ten"}, "requests", ErrBadParam},
		{map[string]string{"requests": "0"}, "requests", ErrBadParam},
		{map[string]string{"mean_vms": "40"}, "mean_vms", ErrBadParam}, // above 32 hosts
		{map[string]string{"hosts": "2"}, "hosts", ErrBadParam},
		{map[string]string{"local_share": "1.5"}, "local_share", ErrBadParam},
		{map[string]string{"local_notice": "soon"}, "local_notice", ErrBadParam},
		{map[string]string{"deadline_ratio_max": "1.5"}, "deadline_ratio_max", ErrBadParam},
		{map[string]string{"mean_duration": "2x"}, "mean_duration", ErrBadParam},
	}
	for _, c := range cases {
		_, err := Generate("lublin99", 1, c.params)
		if !errors.Is(err, c.want) || !containsWord(err, c.name) {
			t.Errorf("%v: error %v, want %v naming %s", c.params, err, c.want, c.name)
		}
	}
}

// TestLublinDeadlineShare: with deadline_share 0.2, a fifth of the 2,000
// external requests are deadline-bound: 400 ± 3 x sqrt(2000 x 0.2 x 0.8)
// = 400 ± 54; and 0 gives none, 1 gives all.
func TestLublinDeadlineShare(t *testing.T) {
	for _, c := range []struct {
		share  string
		lo, hi int
	}{{"0.2", 346, 454}, {"0", 0, 0}, {"1", 2000, 2000}} {
		w, err := Generate("lublin99", 3, map[string]string{"deadline_share": c.share})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range w.Requests {
			if r.Origin == scheduler.External && r.Kind == scheduler.Deadline {
				n++
			}
		}
		if n < c.lo || n > c.hi {
			t.Errorf("deadline_share %s: %d deadline-bound requests, want %d-%d", c.share, n, c.lo, c.hi)
		}
	}
	if _, err := Generate("lublin99", 3, map[string]string{"deadline_share": "1.5"}); !errors.Is(err, ErrBadParam) {
		t.Errorf("deadline_share 1.5: %v, want ErrBadParam", err)
	}
}
