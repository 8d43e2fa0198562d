package preempt

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

const sec = time.Second

// threeGroups is the base scenario. The request is 1 VM of (1 cpu, 2048 MB)
// and every host is full, so a slot opens only when a whole group goes:
//
//	host 0 (2 cpu, 2048 MB): A (id 1, h=300s, 2 VMs of 1 cpu/1024 MB).
//	  Freeing A gives (2, 2048): 1 slot.
//	host 1 (2 cpu, 2048 MB): B (id 2, h=100s) and C (id 3, h=120s), 1 VM of
//	  1 cpu/1024 MB each. One alone frees 1024 MB: 0 slots; both: 1 slot.
//	host 2 (3 cpu, 2048 MB): D, E, F (ids 4-6, h=40s each), 1 VM of 1 cpu
//	  and 682/683/683 MB. Two free at most 1366 MB: 0 slots; all three free
//	  2048 MB: 1 slot.
//
// The minimal sets are {A} (h=300s, 1 lease), {B,C} (h=220s, 2 leases) and
// {D,E,F} (h=120s, 3 leases); mixing groups never helps.
func threeGroups() *cluster {
	return newCluster().
		host(2, 2048).host(2, 2048).host(3, 2048).
		lease(1, 300*sec, vm(0, 1, 1024), vm(0, 1, 1024)).
		lease(2, 100*sec, vm(1, 1, 1024)).
		lease(3, 120*sec, vm(1, 1, 1024)).
		lease(4, 40*sec, vm(2, 1, 682)).
		lease(5, 40*sec, vm(2, 1, 683)).
		lease(6, 40*sec, vm(2, 1, 683)).
		request(1, 1, 2048)
}

// withG adds host 3 (1 cpu, 2048 MB) holding G (id 7, h, 1 VM of 1 cpu/2048
// MB): freeing G gives a slot, so {G} is one more minimal set.
func withG(c *cluster, h time.Duration) *cluster {
	return c.host(1, 2048).lease(7, h, vm(3, 1, 2048))
}

func TestChoosePolicies(t *testing.T) {
	type tc struct {
		name   string
		c      *cluster
		p      Policy
		ids    []uint64
		h      time.Duration
		vms    int
		nsets  int
		reason string
	}
	evenBC := threeGroups() // B and C at 150s each: h{B,C} = 300s
	evenBC.leases[1].h, evenBC.leases[2].h = 150*sec, 150*sec
	tests := []tc{
		{name: "MOV picks the cheapest set", c: threeGroups(), p: MOV,
			ids: []uint64{4, 5, 6}, h: 120 * sec, vms: 3, nsets: 3,
			reason: "h: {D,E,F}=120s < {B,C}=220s < {A}=300s"},
		{name: "MLIP picks the fewest leases", c: threeGroups(), p: MLIP,
			ids: []uint64{1}, h: 300 * sec, vms: 2, nsets: 3,
			reason: "{A} is the only one-lease set"},
		{name: "MOML odd count", c: threeGroups(), p: MOML,
			ids: []uint64{2, 3}, h: 220 * sec, vms: 2, nsets: 3,
			reason: "alpha = median(120, 220, 300) = 220s; {B,C} (2 leases) and {D,E,F} (3) qualify; {B,C} has fewer"},
		{name: "MOML even count takes the mean of the middle two", c: withG(threeGroups(), 500*sec), p: MOML,
			ids: []uint64{2, 3}, h: 220 * sec, vms: 2, nsets: 4,
			reason: "alpha = (220+300)/2 = 260s: {A}=300s and {G}=500s are out; {B,C} beats {D,E,F}"},
		{name: "MOML alpha is inclusive", c: withG(evenBC, 500*sec), p: MOML,
			ids: []uint64{1}, h: 300 * sec, vms: 2, nsets: 4,
			reason: "h = 120, 300, 300, 500: alpha = (300+300)/2 = 300s; {A} (1 lease, 300s <= 300s) qualifies"},
		{name: "MLIP equal counts break on overhead", c: withG(threeGroups(), 500*sec), p: MLIP,
			ids: []uint64{1}, h: 300 * sec, vms: 2, nsets: 4,
			reason: "{A} and {G} have 1 lease each; A's 300s < G's 500s"},
		{name: "MOV unchanged by a dear extra set", c: withG(threeGroups(), 500*sec), p: MOV,
			ids: []uint64{4, 5, 6}, h: 120 * sec, vms: 3, nsets: 4,
			reason: "{D,E,F}=120s is still the cheapest"},
		{name: "MLIP equal count and overhead break on VMs", c: withG(threeGroups(), 300*sec), p: MLIP,
			ids: []uint64{7}, h: 300 * sec, vms: 1, nsets: 4,
			reason: "{A} and {G}: 1 lease, 300s each; G preempts 1 VM, A 2"},
		{name: "MOML median excludes both tied singles", c: withG(threeGroups(), 300*sec), p: MOML,
			ids: []uint64{2, 3}, h: 220 * sec, vms: 2, nsets: 4,
			reason: "h = 120, 220, 300, 300: alpha = (220+300)/2 = 260s excludes {A} and {G}; {B,C} has fewer leases than {D,E,F}"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Choose(tt.p, tt.c.candidates(), tt.c.feasible, DefaultExactLimit)
			if err != nil {
				t.Fatalf("Choose: %v", err)
			}
			if !slices.Equal(got.Leases, tt.ids) || got.Overhead != tt.h || got.VMs != tt.vms {
				t.Errorf("got leases %v h=%v vms=%d, want %v h=%v vms=%d (%s)",
					got.Leases, got.Overhead, got.VMs, tt.ids, tt.h, tt.vms, tt.reason)
			}
			if got.MinimalSets != tt.nsets || got.Method != Exact {
				t.Errorf("got %d sets by %s, want %d by exact", got.MinimalSets, got.Method, tt.nsets)
			}
		})
	}
}

func TestChooseTieBreakOnLeaseIDs(t *testing.T) {
	tests := []struct {
		name string
		c    *cluster
		ids  []uint64
		idx  []int
	}{
		{
			// Two full hosts of (1 cpu, 2048 MB), one lease each: id 9 at
			// index 0 and id 3 at index 1, both h=100s and 1 VM of
			// 1 cpu/2048 MB. The request (1 VM of 1 cpu/2048 MB) needs
			// either: {9} and {3} tie on count, overhead and VMs; [3] < [9].
			name: "lower lease id, whatever the index",
			c: newCluster().host(1, 2048).host(1, 2048).
				lease(9, 100*sec, vm(0, 1, 2048)).
				lease(3, 100*sec, vm(1, 1, 2048)).
				request(1, 1, 2048),
			ids: []uint64{3}, idx: []int{1},
		},
		{
			// Two full hosts of (2 cpu, 2048 MB) with two 1 cpu/1024 MB
			// leases each, all h=100s: ids 9 and 2 on host 0, 3 and 4 on
			// host 1. A 2048 MB slot needs both leases of a host: {9,2}
			// and {3,4} tie on count (2), overhead (200s) and VMs (2).
			// Lexicographically [2 9] < [3 4], although 2+9 > 3+4 and
			// max 9 > 4.
			name: "lexicographically lower id list",
			c: newCluster().host(2, 2048).host(2, 2048).
				lease(9, 100*sec, vm(0, 1, 1024)).
				lease(2, 100*sec, vm(0, 1, 1024)).
				lease(3, 100*sec, vm(1, 1, 1024)).
				lease(4, 100*sec, vm(1, 1, 1024)).
				request(1, 1, 2048),
			ids: []uint64{2, 9}, idx: []int{0, 1},
		},
	}
	for _, tt := range tests {
		for _, p := range []Policy{MOV, MLIP, MOML} {
			t.Run(tt.name+"/"+string(p), func(t *testing.T) {
				got, err := Choose(p, tt.c.candidates(), tt.c.feasible, DefaultExactLimit)
				if err != nil {
					t.Fatalf("Choose: %v", err)
				}
				if !slices.Equal(got.Leases, tt.ids) || !slices.Equal(got.Indexes, tt.idx) {
					t.Errorf("got leases %v indexes %v, want %v %v", got.Leases, got.Indexes, tt.ids, tt.idx)
				}
			})
		}
	}
}

// loaded has non-preemptable load: host 0 (4 cpu, 4096 MB) runs 2 cpu/2048 MB
// that cannot move plus A (id 1, h=300s, 2 VMs of 1 cpu/1024 MB); host 1
// (2 cpu, 2048 MB) runs B (id 2, h=100s, 1 cpu/1024 MB). The request is
// 1 VM of 2 cpu/2048 MB: host 0 has (0, 0) free and host 1 (1, 1024), so
// nothing fits; freeing A gives host 0 (2, 2048) and freeing B gives host 1
// (2, 2048), one slot each. The minimal sets are {A} (300s) and {B} (100s).
func loaded(busy bool) *cluster {
	c := newCluster().host(4, 4096).host(2, 2048)
	if busy {
		c.busy(0, 2, 2048)
	}
	return c.lease(1, 300*sec, vm(0, 1, 1024), vm(0, 1, 1024)).
		lease(2, 100*sec, vm(1, 1, 1024)).
		request(1, 2, 2048)
}

func TestChooseOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		p       Policy
		cands   []Candidate
		c       *cluster
		err     error
		ids     []uint64
		nsets   int
		calls   int // oracle calls, -1: not checked
		explain string
	}{
		{name: "NOP never preempts", p: NOP, c: threeGroups(), err: ErrNoPreemption, calls: 0},
		{name: "NOP with lowercase value is unknown", p: "nop", c: threeGroups(), err: ErrUnknownPolicy, calls: 0},
		{name: "unknown policy", p: "FIFO", c: threeGroups(), err: ErrUnknownPolicy, calls: 0},
		{name: "no candidates", p: MOV, c: newCluster().host(1, 1024).request(1, 2, 2048),
			err: ErrInfeasible, calls: 0},
		{name: "infeasible", p: MLIP, c: threeGroups().request(4, 1, 2048), err: ErrInfeasible, calls: 1,
			explain: "freeing all six leases opens one slot on each of hosts 0-2: 3 < 4"},
		{name: "nothing needed", p: MOV, c: loaded(false), nsets: 1, calls: 2,
			explain: "without the busy load host 0 has (2, 2048) free: one slot already"},
		{name: "busy load forces a preemption", p: MOV, c: loaded(true), ids: []uint64{2}, nsets: 2, calls: -1,
			explain: "{B}=100s < {A}=300s"},
		{name: "busy load, MLIP ties on count", p: MLIP, c: loaded(true), ids: []uint64{2}, nsets: 2, calls: -1,
			explain: "{A} and {B} have one lease each; B's 100s is lower"},
		{name: "repeated lease id", p: MOV, cands: []Candidate{{Lease: 1, VMs: 1}, {Lease: 1, VMs: 2}},
			err: ErrInvalidCandidate, calls: 0},
		{name: "negative overhead", p: MOV, cands: []Candidate{{Lease: 1, VMs: 1, Overhead: -sec}},
			err: ErrInvalidCandidate, calls: 0},
		{name: "negative VMs", p: MOML, cands: []Candidate{{Lease: 1, VMs: -1}},
			err: ErrInvalidCandidate, calls: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cands, f := tt.cands, func(Set) bool { return true }
			if tt.c != nil {
				cands, f = tt.c.candidates(), tt.c.feasible
			}
			calls := 0
			got, err := Choose(tt.p, cands, counted(f, &calls), DefaultExactLimit)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v (%s)", err, tt.err, tt.explain)
			}
			if tt.calls >= 0 && calls != tt.calls {
				t.Errorf("%d oracle calls, want %d", calls, tt.calls)
			}
			if err != nil {
				return
			}
			if !slices.Equal(got.Leases, tt.ids) || got.MinimalSets != tt.nsets {
				t.Errorf("got %v from %d sets, want %v from %d (%s)", got.Leases, got.MinimalSets, tt.ids, tt.nsets, tt.explain)
			}
		})
	}
}

func TestParsePolicy(t *testing.T) {
	tests := []struct {
		in   string
		want Policy
		err  bool
	}{
		{"NOP", NOP, false},
		{"mov", MOV, false},
		{"Mlip", MLIP, false},
		{"moml", MOML, false},
		{"", "", true},
		{"MOVE", "", true},
		{" MOV", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePolicy(tt.in)
			if (err != nil) != tt.err || got != tt.want {
				t.Fatalf("ParsePolicy(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.err)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, ErrUnknownPolicy) {
				t.Errorf("error %v does not wrap ErrUnknownPolicy", err)
			}
			msg := err.Error()
			for _, want := range []string{"\"" + tt.in + "\"", "NOP", "MOV", "MLIP", "MOML"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not mention %s", msg, want)
				}
			}
		})
	}
}

func TestSet(t *testing.T) {
	var s Set
	for _, i := range []int{130, 0, 64, 3, 64} {
		s.Add(i)
	}
	if got, want := s.Indexes(), []int{0, 3, 64, 130}; !slices.Equal(got, want) {
		t.Fatalf("Indexes = %v, want %v", got, want)
	}
	if s.Len() != 4 || !s.Has(130) || s.Has(1) || s.Has(-1) || s.Has(1000) {
		t.Fatalf("Len/Has wrong for %v", s)
	}
	c := s.Clone()
	c.Remove(130)
	c.Remove(7)
	if !s.Has(130) || c.Has(130) || c.Len() != 3 {
		t.Fatalf("Clone is not independent: s=%v c=%v", s, c)
	}
	if !c.Equal(SetOf(0, 3, 64)) || c.Equal(s) || c.key() != SetOf(64, 3, 0).key() {
		t.Fatalf("Equal/key wrong: %v", c)
	}
	c.Remove(64) // leaves a trailing zero word
	if !c.Equal(SetOf(0, 3)) || c.key() != SetOf(0, 3).key() || c.String() != "{0 3}" {
		t.Fatalf("trailing zero words matter: %v", c)
	}
	if NewSet(200).Len() != 0 || NewSet(200).Indexes() != nil || !NewSet(200).Equal(Set{}) {
		t.Fatal("NewSet is not empty")
	}
}

// TestCompareSets checks compareSets against its definition (size, then
// the ascending indexes compared as lists) on random pairs of sets over
// up to three words, some with trailing zero words.
func TestCompareSets(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	sign := func(c int) int { return cmp.Compare(c, 0) }
	for range 20000 {
		var a, b Set
		for _, s := range []*Set{&a, &b} {
			s.words = make([]uint64, r.IntN(4))
			for i := range s.words {
				s.words[i] = r.Uint64() & r.Uint64() & r.Uint64() // sparse
			}
		}
		if r.IntN(4) == 0 { // b: a with one member moved
			b = a.Clone()
			if n := a.Len(); n > 0 {
				k := a.Indexes()[r.IntN(n)]
				b.words[k>>6] &^= 1 << uint(k&63)
				b.Add(r.IntN(190))
			}
		}
		want := a.Len() - b.Len()
		if want == 0 {
			want = slices.Compare(a.Indexes(), b.Indexes())
		}
		if got := compareSets(a, b); sign(got) != sign(want) {
			t.Fatalf("compareSets(%v, %v) = %d, want the sign of %d", a, b, got, want)
		}
	}
}
