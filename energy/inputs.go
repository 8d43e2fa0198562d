package energy

import (
	"math"
	"time"
)

// DefaultAlpha is the waiting factor alpha of docs/models.md §5.
const DefaultAlpha = 5

// Waiting is an external lease waiting in the queue: its VMs, its
// requested duration and when it started waiting.
type Waiting struct {
	VMs      int
	Duration time.Duration
	Since    time.Time
}

// ViolationRisk is the violation risk of the external queue at now
// (docs/models.md §5):
//
//	E   = sum n_i d_i / sum n_i   (mean requested duration, by VM)
//	tau = sum n_i w_i / sum n_i   (mean time waited so far, w_i = now - Since_i)
//	V   = tau / (alpha * E)
//
// V is 0 when nothing waits (no lease, or no VM); entries with fewer than
// one VM count as nothing, negative durations and waits as 0. When every
// duration is 0 (or alpha is not positive) V is +Inf if anything has
// waited and 0 otherwise. Callers validate alpha with Params.Validate.
func ViolationRisk(waiting []Waiting, now time.Time, alpha float64) float64 {
	var vms, dur, waited float64 // sum n, sum n*d, sum n*w
	for _, w := range waiting {
		if w.VMs <= 0 {
			continue
		}
		n := float64(w.VMs)
		vms += n
		dur += n * math.Max(0, w.Duration.Seconds())
		waited += n * math.Max(0, now.Sub(w.Since).Seconds())
	}
	if vms == 0 || waited == 0 {
		return 0
	}
	e, tau := dur/vms, waited/vms
	if e == 0 || !(alpha > 0) {
		return math.Inf(1)
	}
	return tau / (alpha * e)
}

// Utilisation is the utilisation of the switched-on hosts (docs/models.md
// §5): C = L / (P * T) for P = on hosts, T = horizon (from now to
// the latest reservation end on them) and L = bookedNodeSeconds (the
// node-seconds booked on them within the horizon), clamped to [0, 1]; 0
// when P or T is not positive or L is NaN.
func Utilisation(on int, horizon time.Duration, bookedNodeSeconds float64) float64 {
	if on <= 0 || horizon <= 0 || math.IsNaN(bookedNodeSeconds) {
		return 0
	}
	c := bookedNodeSeconds / (float64(on) * horizon.Seconds())
	return math.Max(0, math.Min(1, c))
}

// Booking is a reservation on switched-on hosts: Hosts hosts' worth of
// capacity (a VM taking half a host counts 0.5) from Start to End.
type Booking struct {
	Start, End time.Time
	Hosts      float64
}

// Booked computes Utilisation's horizon and node-seconds from the
// reservations on the switched-on hosts: the horizon runs from now to the
// latest End (0 when none ends after now), and each booking adds Hosts
// times the seconds of it that fall between now and that end.
func Booked(now time.Time, bookings []Booking) (horizon time.Duration, nodeSeconds float64) {
	end := now
	for _, b := range bookings {
		if b.End.After(end) {
			end = b.End
		}
	}
	for _, b := range bookings {
		s, e := b.Start, b.End
		if s.Before(now) {
			s = now
		}
		if e.After(s) && b.Hosts > 0 {
			nodeSeconds += b.Hosts * e.Sub(s).Seconds()
		}
	}
	return end.Sub(now), nodeSeconds
}
