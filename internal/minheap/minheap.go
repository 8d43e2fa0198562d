package minheap

// Item is what a Heap holds: a value that knows whether it comes
// before another of its kind.
type Item[T any] interface {
	Before(other T) bool
}

// Heap is a min-heap: h[0] is the item that comes before all others.
// Its zero value is an empty heap. Change it only through Push and Pop.
type Heap[T Item[T]] []T

// Push adds x.
func (h *Heap[T]) Push(x T) {
	*h = append(*h, x)
	h.up(len(*h) - 1)
}

// Pop removes and returns the earliest item. The heap must not be empty.
func (h *Heap[T]) Pop() T {
	old := *h
	n := len(old) - 1
	old[0], old[n] = old[n], old[0]
	h.down(0, n)
	x := old[n]
	var zero T
	old[n] = zero // drop the reference held by the slice's spare capacity
	*h = old[:n]
	return x
}

// Filter drops the items keep rejects and restores the heap order over
// the rest (O(n)). Items equal under Before may come out in another order
// after it than they would have; the others come out as before.
func (h *Heap[T]) Filter(keep func(T) bool) {
	old := *h
	n := 0
	for _, x := range old {
		if keep(x) {
			old[n] = x
			n++
		}
	}
	clear(old[n:]) // drop the references held by the spare capacity
	*h = old[:n]
	for i := n/2 - 1; i >= 0; i-- {
		h.down(i, n)
	}
}

// up and down are container/heap's, with the interface calls inlined.
func (h Heap[T]) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h[j].Before(h[i]) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (h Heap[T]) down(i, n int) {
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h[j2].Before(h[j1]) {
			j = j2 // right child
		}
		if !h[j].Before(h[i]) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}
