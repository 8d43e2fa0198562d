package fake

import (
	"sync"

	"github.com/bora-sched/bora/drivers"
)

// eventQueue hands events to the reader without ever blocking the
// driver: push appends to an unbounded buffer that run feeds into out.
type eventQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []drivers.Event
	closed bool
	done   chan struct{}
	out    chan drivers.Event
}

func newEventQueue() *eventQueue {
	q := &eventQueue{done: make(chan struct{}), out: make(chan drivers.Event, 64)}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// push queues e; after close it is dropped.
func (q *eventQueue) push(e drivers.Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.buf = append(q.buf, e)
	q.cond.Signal()
}

// run feeds out until close, then closes it.
func (q *eventQueue) run(wg *sync.WaitGroup) {
	defer wg.Done()
	defer close(q.out)
	for {
		q.mu.Lock()
		for len(q.buf) == 0 && !q.closed {
			q.cond.Wait()
		}
		if q.closed {
			q.mu.Unlock()
			return
		}
		e := q.buf[0]
		q.buf[0] = drivers.Event{}
		q.buf = q.buf[1:]
		q.mu.Unlock()
		select {
		case q.out <- e:
		case <-q.done:
			return
		}
	}
}

// close stops run; events not yet delivered are dropped.
func (q *eventQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.closed = true
	close(q.done)
	q.cond.Broadcast()
}
