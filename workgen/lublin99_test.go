package workgen

import (
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// lublin99 over 100k requests: size, run time and inter-arrival against
// the model's exact moments, and the source's setup.
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
	sizes, durs, ia := make([]float64, 0, draws), make([]float64, 0, draws), make([]float64, 0, draws)
	cycle := newDailyCycle(lublinANUM, lublinBNUM)
	prev := 0.0
	for _, r := range w.Requests {
		sizes = append(sizes, float64(r.VMs))
		durs = append(durs, r.Duration.Seconds())
		op := cycle.op(r.Arrival.Seconds())
		ia = append(ia, op-prev)
		prev = op
	}
	size := pmfRaw(s.sizePMF())
	// The setup's targets: mean 4 VMs, mean 2 h.
	if math.Abs(size.mean()-4) > 1e-6 {
		t.Errorf("model mean size %v, want 4", size.mean())
	}
	checkMoments(t, "size", sizes, size)
	dur := raw(s.runMoments(s.scale))
	if math.Abs(dur.mean()-7200) > 1e-3 {
		t.Errorf("model mean run time %v s, want 7200", dur.mean())
	}
	checkMoments(t, "duration", durs, dur)
	// Inter-arrivals, mapped back to operational time, are gamma with
	// shape 0.5 and mean 14 days / 3,000 = 403.2 s: variance
	// 403.2^2 / 0.5. Arrivals are rounded to the second, which adds
	// less than 1/6 s^2 to the variance.
	k, theta := 0.5, 403.2/0.5
	checkMoments(t, "inter-arrival", ia, raw{0, k * theta, k * (k + 1) * theta * theta,
		k * (k + 1) * (k + 2) * theta * theta * theta, k * (k + 1) * (k + 2) * (k + 3) * theta * theta * theta * theta})
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
	// The span: 14 days on average; the gamma inter-arrivals (cv 1.41)
	// make the sum of 3,000 vary by 14 d x 1.41 / sqrt(3000) = 0.36 d.
	if d := last.Hours() / 24; d < 12.9 || d > 15.1 {
		t.Errorf("last arrival after %.2f days, want 14 ± 1.1", d)
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
