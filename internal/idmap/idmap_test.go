package idmap

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMap checks lookups by ID in the slice and past it: an ID within
// slack of the end (beyond the slice's length) grows the slice, one
// further goes in the map until the slice grows past it.
func TestMap(t *testing.T) {
	var m Map[string]
	m.Set(1, "one")
	m.Set(3, "three")
	// 1 and 3 grow the slice to 4 entries (0..3).
	if len(m.vals) != 4 || m.far != nil || count(&m) != 2 {
		t.Fatalf("after IDs 1 and 3: %d in the slice, far %v, count %d; want 4, none, 2", len(m.vals), m.far, count(&m))
	}
	m.Set(1<<40, "far") // 2^40 - 4 > slack + 4: held far
	m.Set(10000, "mid") // 10000 - 4 > 4096 + 4: far too
	if len(m.vals) != 4 || len(m.far) != 2 || count(&m) != 4 {
		t.Fatalf("IDs 2^40 and 10000: %d in the slice, far %v, count %d; want 4, both far, 4", len(m.vals), m.far, count(&m))
	}
	// 4100 - 4 = 4096 < 4096 + 4: grows the slice to 4101; then 8000
	// (3899 past 4101) to 8001, and 10001 to 10002, which takes 10000 in.
	for _, id := range []uint64{4100, 8000, 10001} {
		m.Set(id, "step")
	}
	if len(m.vals) != 10002 || len(m.far) != 1 || count(&m) != 7 {
		t.Fatalf("after growing past 10000: %d in the slice, %d far, count %d; want 10002, 1, 7", len(m.vals), len(m.far), count(&m))
	}
	m.Set(3, "THREE") // replaced: the count unchanged
	m.Set(2, "")      // a zero value is a value
	cases := []struct {
		id   uint64
		want string
		ok   bool
	}{
		{0, "", false}, {1, "one", true}, {2, "", true}, {3, "THREE", true}, {4, "", false},
		{10000, "mid", true}, {1 << 40, "far", true}, {1<<40 + 1, "", false}, {1 << 63, "", false},
	}
	for _, c := range cases {
		if got, ok := m.Get(c.id); got != c.want || ok != c.ok {
			t.Errorf("Get(%d) = %q %v, want %q %v", c.id, got, ok, c.want, c.ok)
		}
	}
	if count(&m) != 8 {
		t.Errorf("count = %d, want 8 (1, 2, 3, 4100, 8000, 10000, 10001, 2^40)", count(&m))
	}
	var ids []uint64
	m.Range(func(id uint64, _ string) { ids = append(ids, id) })
	if want := []uint64{1, 2, 3, 4100, 8000, 10000, 10001, 1 << 40}; !slices.Equal(ids, want) {
		t.Errorf("Range IDs = %v, want %v", ids, want)
	}
	c := m.Clone(func(s string) string { return s + "'" })
	m.Delete(3)
	m.Delete(1 << 40)
	m.Delete(1 << 50) // absent: nothing
	m.Delete(4)       // in the slice, absent: nothing
	if _, ok := m.Get(3); ok || count(&m) != 6 {
		t.Errorf("after deleting 3 and 2^40: Get(3) ok %v, count %d; want false, 6", ok, count(&m))
	}
	if _, ok := m.Get(1 << 40); ok {
		t.Error("Get(2^40) after Delete: still there")
	}
	// The clone holds copies made by the function, untouched by the
	// deletions.
	if v, ok := c.Get(3); v != "THREE'" || !ok {
		t.Errorf("clone Get(3) = %q %v, want THREE'", v, ok)
	}
	if v, ok := c.Get(1 << 40); v != "far'" || !ok || count(&c) != 8 {
		t.Errorf("clone Get(2^40) = %q %v, count %d; want far', 8", v, ok, count(&c))
	}
}

// count is the number of IDs with a value, as Range gives them.
func count[V any](m *Map[V]) int {
	n := 0
	m.Range(func(uint64, V) { n++ })
	return n
}

// TestCloneInto copies a map of slices into the memory of an earlier copy
// that holds other IDs, far ones too: the copy holds exactly the map's
// values, made in the earlier copy's slices where it had one for the ID,
// and changing it leaves the map as it was.
func TestCloneInto(t *testing.T) {
	grow := func(old, v []int) []int { return append(old[:0], v...) }
	var m Map[[]int]
	m.Set(1, []int{1})
	m.Set(3, []int{3, 3})
	m.Set(1<<40, []int{9})
	old := m.CloneInto(Map[[]int]{}, grow)
	old.Set(2, []int{2})       // not in m
	old.Set(3, []int{7, 7, 7}) // in m: its memory is taken
	old.Delete(1)
	old.Set(9000, []int{5}) // far
	mem := &old.vals[3][0]
	c := m.CloneInto(old, grow)
	for _, id := range []uint64{0, 1, 2, 3, 4, 9000, 1 << 40} {
		want, wantOK := m.Get(id)
		if got, ok := c.Get(id); ok != wantOK || !slices.Equal(got, want) {
			t.Errorf("copy's Get(%d) = %v %v, want %v %v", id, got, ok, want, wantOK)
		}
	}
	if v, _ := c.Get(3); &v[0] != mem {
		t.Errorf("ID 3's copy was not made in the earlier copy's slice")
	}
	v, _ := c.Get(3)
	v[0] = 100
	if w, _ := m.Get(3); w[0] != 3 {
		t.Errorf("changing the copy changed the map: %v", w)
	}
	if count(&c) != 3 {
		t.Errorf("the copy holds %d values, want 3", count(&c))
	}
}

// TestCloneFromLowest copies a map whose lowest IDs were deleted into the
// memory of a copy that still held values for them: the copy copies the
// IDs held alone, and the stale values it leaves for the others are never
// read: Get gives none for those IDs, Range and a copy of the copy skip
// them, and setting a low ID again brings it back.
func TestCloneFromLowest(t *testing.T) {
	grow := func(old, v []int) []int { return append(old[:0], v...) }
	var m Map[[]int]
	for id := uint64(0); id < 10; id++ {
		m.Set(id, []int{int(id)})
	}
	old := m.CloneInto(Map[[]int]{}, grow) // values for 0..9
	for id := uint64(0); id < 6; id++ {
		m.Delete(id)
	}
	m.Delete(8)
	if len(m.held) != 3 {
		t.Fatalf("%d IDs held after deleting 0..5 and 8, want 3", len(m.held))
	}
	c := m.CloneInto(old, grow)
	var ids []uint64
	c.Range(func(id uint64, v []int) {
		ids = append(ids, id)
		if len(v) != 1 || v[0] != int(id) {
			t.Errorf("copy's value for %d = %v", id, v)
		}
	})
	if want := []uint64{6, 7, 9}; !slices.Equal(ids, want) {
		t.Errorf("copy's IDs = %v, want %v", ids, want)
	}
	for _, id := range []uint64{0, 3, 5, 8} {
		if v, ok := c.Get(id); ok || v != nil {
			t.Errorf("copy's Get(%d) = %v %v, want nil false", id, v, ok)
		}
	}
	c.Set(2, []int{22}) // below lo: held again, and walked by a copy
	cc := c.Clone(func(v []int) []int { return slices.Clone(v) })
	if v, ok := cc.Get(2); !ok || !slices.Equal(v, []int{22}) || count(&cc) != 4 {
		t.Errorf("after Set(2): copy of the copy Get(2) = %v %v, %d values; want [22] true, 4", v, ok, count(&cc))
	}
}

// TestMapAgainstModel runs random sets, deletions and copies (into new
// memory and into the memory of older copies) against a Go map: every
// copy and the map itself answer Get and Range as the model does, and a
// copy made in reused memory holds no value of the IDs it does not hold,
// whatever that memory held before.
func TestMapAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	grow := func(old, v []int) []int { return append(old[:0], v...) }
	check := func(step int, m *Map[[]int], model map[uint64]int) {
		t.Helper()
		for id := uint64(0); id < 700; id++ {
			v, ok := m.Get(id)
			want, wantOK := model[id]
			if ok != wantOK || ok && (len(v) != 1 || v[0] != want) || !ok && v != nil {
				t.Fatalf("step %d: Get(%d) = %v %v, want %v %v", step, id, v, ok, want, wantOK)
			}
		}
		var ids []uint64
		m.Range(func(id uint64, v []int) { ids = append(ids, id) })
		want := slices.Sorted(maps.Keys(model))
		if !slices.Equal(ids, want) {
			t.Fatalf("step %d: Range gives %v, want %v", step, ids, want)
		}
	}
	var m Map[[]int]
	model := map[uint64]int{}
	var olds []Map[[]int] // copies no longer used, whose memory the next copies take
	for step := range 3000 {
		id := uint64(rng.IntN(600))
		if step > 1500 {
			id += 50 // the lowest IDs left behind, most of them
		}
		switch r := rng.IntN(10); {
		case r < 5:
			m.Set(id, []int{step})
			model[id] = step
		case r < 9:
			m.Delete(id)
			delete(model, id)
		default:
			var dst Map[[]int]
			if len(olds) > 0 && rng.IntN(2) == 0 {
				k := rng.IntN(len(olds))
				dst = olds[k]
				olds = slices.Delete(olds, k, k+1)
			}
			c := m.CloneInto(dst, grow)
			check(step, &c, model)
			olds = append(olds, c)
		}
		if step%50 == 0 {
			check(step, &m, model)
		}
	}
	check(3000, &m, model)
}
