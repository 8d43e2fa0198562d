package scheduler

import (
	"fmt"
	"math/rand"
	"testing"
	"time"
)

// Property of deadline admission, on small random instances (1-4 hosts of
// one core and 1024 MB, 1-5 deadline leases of whole-host VMs, every time
// a multiple of 15 min, arrivals spread so that some leases have started
// when others arrive):
//
//	D1: no accepted deadline lease is ever planned to end, or ends, after
//	    its deadline;
//	D2: a lease is rejected only if brute force finds no schedule of the
//	    accepted leases (those begun where they are, the others anywhere
//	    in their intervals) plus it; and the reason says which case it
//	    was: deadline-interval-too-small only if it does not fit even with
//	    the leases that have not begun gone, deadline-infeasible only if
//	    it does.
//
// Each seed is its own subtest, so a failure names the seed to replay.
func TestDeadlineAdmissionProperty(t *testing.T) {
	const unit = 15 * time.Minute
	for seed := int64(1); seed <= 400; seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			hosts := 1 + rng.Intn(4)
			s := smallCluster(t, hosts)
			var reqs []Request
			arrival := time.Duration(0)
			for i, n := 0, 1+rng.Intn(5); i < n; i++ {
				arrival += time.Duration(rng.Intn(2)) * unit
				ready := arrival + time.Duration(1+rng.Intn(3))*unit
				d := time.Duration(1+rng.Intn(3)) * unit
				reqs = append(reqs, Request{Name: fmt.Sprint(i), Kind: Deadline, VMs: 1 + rng.Intn(hosts), CPU: 100, Memory: 1024,
					Arrival: arrival, Start: ready, Duration: d, Deadline: ready + d + time.Duration(rng.Intn(4))*unit,
					Class: Migratable, Origin: External})
			}
			var accepted []*Lease
			for _, r := range reqs {
				now := t0.Add(r.Arrival)
				s.Advance(now)
				l, _ := s.Submit(now, r)
				fits := bruteForce(hosts, now, accepted, l, unit, false)
				alone := bruteForce(hosts, now, accepted, l, unit, true)
				switch {
				case l.State == Scheduled:
					accepted = append(accepted, l)
				case l.State != Rejected:
					t.Fatalf("lease %s is %s", r.Name, l.State)
				case fits:
					t.Fatalf("D2: lease %s rejected (%s: %s) but a schedule exists; requests %+v", r.Name, l.Reason, l.Detail, reqs)
				case l.Reason == ReasonDeadlineInterval && alone, l.Reason == ReasonDeadline && !alone:
					t.Fatalf("D2: lease %s rejected with %s, but fits alone = %v; requests %+v", r.Name, l.Reason, alone, reqs)
				}
				for _, a := range accepted {
					if a.plannedEnd().After(a.Deadline) {
						t.Fatalf("D1: lease %d planned to end at %s, after its deadline %s", a.ID, a.plannedEnd(), a.Deadline)
					}
				}
			}
			play(s, t0.Add(24*time.Hour), nil)
			for _, a := range accepted {
				if a.State != Done || a.End.After(a.Deadline) {
					t.Errorf("D1: lease %d is %s, ended at %s; deadline %s", a.ID, a.State, a.End, a.Deadline)
				}
			}
		})
	}
}

// bruteForce reports whether lease l and the accepted leases have a
// schedule on hosts whole-host slots at now: those begun (planned to start
// before now, or started) stay where they are; the others, and l, start
// anywhere from their ready time (or now) on, on the unit grid, ending by
// their deadline. With alone set, the accepted leases that have not begun
// are left out. All times are multiples of unit, so a schedule exists iff
// one does on the grid (shift every lease left until it starts at its
// ready time or when another ends); VMs take a whole host and hosts are
// alike, so it exists iff no unit holds more VMs than hosts.
func bruteForce(hosts int, now time.Time, accepted []*Lease, l *Lease, unit time.Duration, alone bool) bool {
	slot := func(t time.Time) int { return int(t.Sub(t0) / unit) }
	used := map[int]int{}
	type job struct{ vms, from, until, d int }
	var jobs []job
	add := func(r Request, ready time.Time) {
		from := ready
		if from.Before(now) {
			from = now
		}
		d := int(r.Duration / unit)
		jobs = append(jobs, job{r.VMs, slot(from), int(r.Deadline/unit) - d, d})
	}
	for _, a := range accepted {
		if a.Started() || a.PlannedStart().Before(now) || a.State.Terminal() {
			if a.State.Terminal() {
				continue
			}
			for k := slot(a.PlannedStart()); k < slot(a.plannedEnd()); k++ {
				used[k] += a.Req.VMs
			}
			continue
		}
		if !alone {
			add(a.Req, a.Ready)
		}
	}
	add(l.Req, t0.Add(l.Req.ReadyTime()))
	var place func(i int) bool
	place = func(i int) bool {
		if i == len(jobs) {
			return true
		}
		j := jobs[i]
		for st := j.from; st <= j.until; st++ {
			ok := true
			for k := st; k < st+j.d && ok; k++ {
				ok = used[k]+j.vms <= hosts
			}
			if !ok {
				continue
			}
			for k := st; k < st+j.d; k++ {
				used[k] += j.vms
			}
			if place(i + 1) {
				return true
			}
			for k := st; k < st+j.d; k++ {
				used[k] -= j.vms
			}
		}
		return false
	}
	return place(0)
}
