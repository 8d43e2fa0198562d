package scheduler

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// roundTrip saves s through JSON (as the daemon's store does) and restores
// it onto a fresh table with the same hosts.
func roundTrip(t *testing.T, s *Scheduler) *Scheduler {
	t.Helper()
	var saved []SavedLease
	for _, l := range s.Leases() {
		sl, ok := s.Save(l.ID)
		if !ok {
			t.Fatalf("lease %d not found", l.ID)
		}
		saved = append(saved, sl)
	}
	data, err := json.Marshal(struct {
		State  SavedState
		Leases []SavedLease
	}{s.State(), saved})
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		State  SavedState
		Leases []SavedLease
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	table := slottable.New()
	for h := 0; h < s.table.NumHosts(); h++ {
		host, _ := s.table.Host(slottable.HostID(h))
		if _, err := table.AddHost(host.Name, host.Capacity); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Restore(s.cfg, table, s.epoch, back.State, back.Leases, nil)
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	return r
}

// drive plays the same script on a scheduler: advance through events for
// six hours, with an advance reservation that needs preemption, an early
// end and a cancellation on the way; it returns every action, rendered.
func drive(s *Scheduler, start time.Time) []string {
	var out []string
	log := func(acts []Action) {
		for _, a := range acts {
			out = append(out, fmt.Sprintf("%s %s %d %v %v", a.At.Format(time.TimeOnly), a.Op, a.Lease, a.Hosts, a.From))
		}
	}
	end := start.Add(6 * time.Hour)
	now := start
	step := 0
	for {
		next, ok := s.NextEvent()
		if !ok || next.After(end) {
			break
		}
		now = next
		log(s.Advance(now))
		step++
		switch step {
		case 5:
			_, acts := s.Submit(now, Request{Kind: AdvanceReservation, Arrival: now.Sub(s.epoch),
				Start: now.Add(30 * time.Minute).Sub(s.epoch), Duration: time.Hour, VMs: 150,
				CPU: 100, Memory: 1024, Class: NonPreemptable, Origin: Local})
			log(acts)
		case 9:
			for _, l := range s.Leases() {
				if l.State == Running {
					log(s.Finished(now, l.ID))
					break
				}
			}
		case 13:
			for _, l := range s.Leases() {
				if l.State == Queued || l.State == Scheduled {
					acts, _ := s.Cancel(now, l.ID)
					log(acts)
					break
				}
			}
		}
	}
	return out
}

// TestRestoreCarriesOn: a scheduler saved and restored mid-run makes
// exactly the same decisions afterwards as the one that never stopped.
func TestRestoreCarriesOn(t *testing.T) {
	// seeds whose script suspends and resumes (seed 2 only cancels)
	for _, seed := range []uint64{1, 3} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			a, now := benchBusy(t, 100, seed)
			a.cfg.CheckInvariants = true
			b := roundTrip(t, a)
			if err := b.Check(); err != nil {
				t.Fatal(err)
			}
			// The restored wake-ups are all live, and the heap counts as
			// just compacted: the first decision after a restart does not
			// filter it again (BenchmarkPreemptDecision restores each time).
			for _, w := range b.wake {
				if l := b.leases.get(w.lease); l == nil || l.gen != w.gen {
					t.Fatalf("restored a stale wake-up %+v", w)
				}
			}
			if b.wakeLimit != 2*len(b.wake) {
				t.Fatalf("restored with %d wake-ups and a compaction limit of %d, want twice as many", len(b.wake), b.wakeLimit)
			}
			want, got := drive(a, now), drive(b, now)
			ops := map[string]int{}
			for _, w := range want {
				var at, op string
				fmt.Sscan(w, &at, &op)
				ops[op]++
			}
			for _, op := range []string{"start", "suspend", "resume", "stop", "done"} {
				if ops[op] == 0 {
					t.Fatalf("the script never enacted %q: %v", op, ops)
				}
			}
			if !reflect.DeepEqual(want, got) {
				for i := range min(len(want), len(got)) {
					if want[i] != got[i] {
						t.Fatalf("action %d differs:\n  uninterrupted: %s\n  restored:      %s", i, want[i], got[i])
					}
				}
				t.Fatalf("%d actions uninterrupted, %d restored", len(want), len(got))
			}
			for _, l := range a.Leases() {
				m := b.Lease(l.ID)
				if m == nil || m.State != l.State || !reflect.DeepEqual(m.History, l.History) || m.Remaining != l.Remaining {
					t.Fatalf("lease %d: uninterrupted %s, restored %+v", l.ID, l.State, m)
				}
			}
			if err := b.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestRestoreRejectsBadState: a saved plan that does not fit the table is
// an error, not a corrupt scheduler.
func TestRestoreRejectsBadState(t *testing.T) {
	table := slottable.New()
	if _, err := table.AddHost("h0", slottable.Resources{100, 1024}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	over := SavedLease{Lease: Lease{ID: 1, State: Running, Req: Request{VMs: 2, CPU: 100, Memory: 512}},
		Plan: []SavedPhase{{Kind: "vm", Start: at, End: at.Add(time.Hour), Hosts: []slottable.HostID{0, 0},
			Reservations: []SavedReservation{{Host: 0, Start: at, End: at.Add(time.Hour), Res: slottable.Resources{200, 1024}}}}}}
	badKind := over
	badKind.Plan = []SavedPhase{{Kind: "teleport", Start: at, End: at}}
	cfg := DefaultConfig()
	cfg.CheckInvariants = true
	for name, l := range map[string]SavedLease{"over capacity": over, "unknown phase": badKind} {
		t2 := slottable.New()
		_, _ = t2.AddHost("h0", slottable.Resources{100, 1024})
		if _, err := Restore(cfg, t2, at, SavedState{}, []SavedLease{l}, nil); err == nil {
			t.Errorf("%s: restored without error", name)
		}
	}
}

// TestRestoreFarLeaseID: a snapshot whose lease IDs lie far past any the
// scheduler would hand out (another numbering, or a damaged file that
// still checks) restores, finds its leases by ID, and numbers new leases
// after them; the lease index keeps such IDs in a map, not in a slice of
// 2^40 entries (internal/idmap).
func TestRestoreFarLeaseID(t *testing.T) {
	table := slottable.New()
	if _, err := table.AddHost("h0", slottable.Resources{100, 1024}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	const far = LeaseID(1 << 40)
	done := SavedLease{Lease: Lease{ID: far, State: Done, Submitted: at, Req: Request{Kind: BestEffort, VMs: 1, CPU: 100, Memory: 512, Duration: time.Hour}}}
	cfg := DefaultConfig()
	cfg.CheckInvariants = true
	s, err := Restore(cfg, table, at, SavedState{}, []SavedLease{done}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l := s.Lease(far); l == nil || l.State != Done {
		t.Fatalf("Lease(2^40) after restore = %+v, want the done lease", l)
	}
	l, _ := s.Submit(at, be("next", time.Hour))
	// The next ID is 2^40+1; the one host is free, so it starts now.
	if l.ID != far+1 || s.Lease(far+1) != l || l.State != Running {
		t.Fatalf("submitted after a restore of lease 2^40: ID %d, state %s; want ID 2^40+1, Running", l.ID, l.State)
	}
	if s.Lease(far) == nil || s.Lease(far+2) != nil || s.Lease(1) != nil {
		t.Error("lookups by ID around 2^40 disagree with the leases held")
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
