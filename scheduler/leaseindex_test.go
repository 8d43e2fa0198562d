package scheduler

import "testing"

// TestLeaseIndex checks lookups by ID in the slice and past it: an ID
// within denseSlack of the end grows the slice, one further goes in the
// map until the slice grows past it.
func TestLeaseIndex(t *testing.T) {
	var x leaseIndex
	mk := func(id LeaseID) *Lease { return &Lease{ID: id} }
	l1, l3 := mk(1), mk(3)
	x.set(l1)
	x.set(l3)
	// 1 and 3 grow the slice to 4 entries (0..3).
	if len(x.byID) != 4 || x.far != nil {
		t.Fatalf("after IDs 1 and 3: %d dense entries, far %v; want 4 and none", len(x.byID), x.far)
	}
	far := mk(1 << 40) // 2^40 - 4 > denseSlack + 4: held far
	x.set(far)
	if len(x.byID) != 4 || x.far[far.ID] != far {
		t.Fatalf("ID 2^40: %d dense entries, far %v; want 4 and the lease held far", len(x.byID), x.far)
	}
	mid := mk(10000) // 10000 - 4 > 4096 + 4: far too
	x.set(mid)
	if x.far[mid.ID] != mid {
		t.Fatalf("ID 10000 not held far (dense %d)", len(x.byID))
	}
	// Grow the slice step by step to past 10000: 4 -> 4101 (4096+4 past
	// 4, so 4100 is the last that grows it from 4) and so on.
	for _, id := range []LeaseID{4100, 8000, 10001} {
		x.set(mk(id))
	}
	if len(x.byID) != 10002 || x.byID[10000] != mid || len(x.far) != 1 {
		t.Fatalf("after growing past 10000: %d dense, byID[10000] = %v, %d far; want 10002, lease 10000, 1 far", len(x.byID), x.byID[10000], len(x.far))
	}
	cases := []struct {
		id   LeaseID
		want *Lease
	}{
		{0, nil}, {1, l1}, {2, nil}, {3, l3}, {10000, mid}, {1 << 40, far}, {1<<40 + 1, nil}, {1 << 63, nil},
	}
	for _, c := range cases {
		if got := x.get(c.id); got != c.want {
			t.Errorf("get(%d) = %v, want %v", c.id, got, c.want)
		}
	}
	c := x.clone(func(l *Lease) *Lease { cp := *l; return &cp })
	x.del(3)
	x.del(1 << 40)
	x.del(1 << 50) // absent: nothing
	if x.get(3) != nil || x.get(1<<40) != nil || x.get(1) != l1 {
		t.Errorf("after del(3), del(2^40): get(3) = %v, get(2^40) = %v, get(1) = %v", x.get(3), x.get(1<<40), x.get(1))
	}
	// The clone holds copies, untouched by the deletions.
	if g := c.get(3); g == nil || g == l3 || g.ID != 3 {
		t.Errorf("clone's lease 3 = %v, want a copy of lease 3", g)
	}
	if g := c.get(1 << 40); g == nil || g == far || g.ID != far.ID {
		t.Errorf("clone's lease 2^40 = %v, want a copy", g)
	}
}
