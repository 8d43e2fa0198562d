package minheap

import (
	"container/heap"
	"math/rand"
	"testing"
)

// ev is ordered by at, then by key; id tells apart events that are
// equal under that order, to check which of them comes out first.
type ev struct{ at, key, id int }

func (a ev) Before(b ev) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.key < b.key
}

// ref is the same ordering through container/heap, as the scheduler,
// the simulator and the simulated clock used it before this package.
type ref []ev

func (h ref) Len() int           { return len(h) }
func (h ref) Less(i, j int) bool { return h[i].Before(h[j]) }
func (h ref) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *ref) Push(x any)        { *h = append(*h, x.(ev)) }
func (h *ref) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func TestPopOrderByTimeThenKey(t *testing.T) {
	var h Heap[ev]
	for _, e := range []ev{{at: 5, key: 2, id: 1}, {at: 3, key: 9, id: 2}, {at: 5, key: 1, id: 3}, {at: 1, key: 7, id: 4}, {at: 3, key: 4, id: 5}} {
		h.Push(e)
	}
	if h[0].id != 4 {
		t.Fatalf("h[0] = %+v, want the event at 1 (id 4)", h[0])
	}
	// By at, then key: (1,7) (3,4) (3,9) (5,1) (5,2).
	want := []int{4, 5, 2, 3, 1}
	for i, id := range want {
		if got := h.Pop(); got.id != id {
			t.Fatalf("pop %d = %+v, want id %d", i, got, id)
		}
	}
	if len(h) != 0 {
		t.Fatalf("len = %d after popping all, want 0", len(h))
	}
}

// TestSameOrderAsContainerHeap pushes and pops the same random events,
// with many ties, through both heaps: every pop must return the same
// event (same id), so replacing container/heap cannot change which of
// two equal wake-ups or timers goes first.
func TestSameOrderAsContainerHeap(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var h Heap[ev]
	var r ref
	id := 0
	for step := 0; step < 20000; step++ {
		if rng.Intn(3) > 0 || len(h) == 0 {
			id++
			e := ev{at: rng.Intn(50), key: rng.Intn(4), id: id}
			h.Push(e)
			heap.Push(&r, e)
			continue
		}
		got, want := h.Pop(), heap.Pop(&r).(ev)
		if got != want {
			t.Fatalf("step %d: Pop = %+v, container/heap = %+v", step, got, want)
		}
	}
	for len(h) > 0 {
		if got, want := h.Pop(), heap.Pop(&r).(ev); got != want {
			t.Fatalf("drain: Pop = %+v, container/heap = %+v", got, want)
		}
	}
	if len(r) != 0 {
		t.Fatalf("container/heap has %d events left", len(r))
	}
}

// TestFilter drops random events from heaps built with pushes and pops:
// what comes out after is the kept events in (at, key) order, and pushing
// and popping on after the filter keeps that order.
func TestFilter(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for round := 0; round < 300; round++ {
		var h Heap[ev]
		live := map[int]ev{}
		id := 0
		for i := rng.Intn(200); i > 0; i-- {
			if len(h) > 0 && rng.Intn(4) == 0 {
				delete(live, h.Pop().id)
				continue
			}
			id++
			e := ev{at: rng.Intn(30), key: rng.Intn(5), id: id}
			h.Push(e)
			live[e.id] = e
		}
		mod := 2 + rng.Intn(3)
		h.Filter(func(e ev) bool { return e.id%mod != 0 })
		for k := range live {
			if k%mod == 0 {
				delete(live, k)
			}
		}
		if len(h) != len(live) {
			t.Fatalf("round %d: %d events after Filter, want %d", round, len(h), len(live))
		}
		for i := rng.Intn(10); i > 0; i-- {
			id++
			e := ev{at: rng.Intn(30), key: rng.Intn(5), id: id}
			h.Push(e)
			live[e.id] = e
		}
		var prev *ev
		for len(h) > 0 {
			e := h.Pop()
			if _, ok := live[e.id]; !ok {
				t.Fatalf("round %d: popped %+v, which was dropped or never pushed", round, e)
			}
			delete(live, e.id)
			if prev != nil && e.Before(*prev) {
				t.Fatalf("round %d: popped %+v after %+v", round, e, *prev)
			}
			prev = &e
		}
		if len(live) != 0 {
			t.Fatalf("round %d: %d kept events never came out", round, len(live))
		}
	}
}
