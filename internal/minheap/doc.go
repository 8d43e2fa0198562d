// Package minheap is a binary min-heap over a slice, shared by the three
// places bora keeps events ordered by time: the scheduler's lease
// wake-ups, the simulator's real lease ends and the simulated clock's
// timers.
//
// A Heap[T] is a plain slice, so its zero value is an empty heap and the
// earliest item is h[0]. T orders itself with a Before method, which
// must be a strict order; the three users break time ties by lease ID or
// by timer sequence number. Push and Pop move items exactly as
// container/heap does, so a heap built here pops equal items in the
// same order as one built with container/heap. Filter drops the items
// a function rejects (the scheduler's stale wake-ups) and orders the rest
// again: equal items may then come out in another order.
//
// It imports nothing from bora.
package minheap
