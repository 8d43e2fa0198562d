package libvirt

import (
	"sync"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/bora-sched/bora/drivers"
)

// eventQueue delivers events in order without ever blocking the producer
// (a host's watcher): events wait in an unbounded slice until the consumer
// takes them.
type eventQueue struct {
	out  chan drivers.Event
	wake chan struct{}

	mu    sync.Mutex
	items []drivers.Event
}

func newEventQueue() *eventQueue {
	return &eventQueue{out: make(chan drivers.Event), wake: make(chan struct{}, 1)}
}

func (q *eventQueue) push(e drivers.Event) {
	q.mu.Lock()
	q.items = append(q.items, e)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// run hands the queued events to out until done closes, then closes out.
func (q *eventQueue) run(done <-chan struct{}) {
	defer close(q.out)
	for {
		q.mu.Lock()
		if len(q.items) == 0 {
			q.mu.Unlock()
			select {
			case <-q.wake:
				continue
			case <-done:
				return
			}
		}
		e := q.items[0]
		q.items = q.items[1:]
		q.mu.Unlock()
		select {
		case q.out <- e:
		case <-done:
			return
		}
	}
}

// expectations are the stops bora caused itself: before destroying,
// shutting down, saving or migrating away a running domain the driver
// expects one "stopped" lifecycle event for it on that host, and that
// event is not reported. They are counted: an attempt whose context ended
// may still stop the domain while its retry waits, and each attempt that
// fails without stopping anything drops its own. Expectations the events
// never consume (lost with a connection) lapse at their deadline.
type expectations struct {
	mu sync.Mutex
	m  map[string]*expectation
}

type expectation struct {
	n     int
	until time.Time
}

func expectKey(host, name string) string { return host + "\x00" + name }

// add expects one more stop of name on host, until the deadline.
func (x *expectations) add(host, name string, until time.Time) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.m == nil {
		x.m = map[string]*expectation{}
	}
	now := time.Now()
	for k, e := range x.m {
		if now.After(e.until) {
			delete(x.m, k)
		}
	}
	k := expectKey(host, name)
	e := x.m[k]
	if e == nil {
		e = &expectation{}
		x.m[k] = e
	}
	e.n++
	if until.After(e.until) {
		e.until = until
	}
}

// drop forgets one expectation (its operation failed: nothing stopped).
func (x *expectations) drop(host, name string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.decrement(expectKey(host, name))
}

func (x *expectations) decrement(k string) {
	if e := x.m[k]; e != nil {
		if e.n--; e.n <= 0 {
			delete(x.m, k)
		}
	}
}

// take consumes one expectation of a stop of name on host, if one holds.
func (x *expectations) take(host, name string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	k := expectKey(host, name)
	e := x.m[k]
	if e == nil {
		return false
	}
	if time.Now().After(e.until) {
		delete(x.m, k)
		return false
	}
	x.decrement(k)
	return true
}

// expectStop expects the stop an operation bounded by ctx-deadline
// causes; the expectation outlives the deadline a little, for the event
// to arrive.
func (d *Driver) expectStop(h *host, name string, deadline time.Time) {
	d.expected.add(h.cfg.Name, name, deadline.Add(time.Minute))
}

// lifecycle turns one libvirt lifecycle event into a drivers.Event when a
// domain of bora's stopped without bora asking.
func (d *Driver) lifecycle(h *host, m golibvirt.DomainEventLifecycleMsg) {
	lease, index, ok := drivers.ParseName(m.Dom.Name)
	if !ok || golibvirt.DomainEventType(m.Event) != golibvirt.DomainEventStopped {
		return
	}
	log := h.log.WithField("vm", m.Dom.Name).WithField("lease_id", lease)
	if d.expected.take(h.cfg.Name, m.Dom.Name) {
		log.WithField("detail", m.Detail).Debug("domain stopped as asked")
		return
	}
	kind, detail := classifyStop(golibvirt.DomainEventStoppedDetailType(m.Detail))
	log.WithField("event", kind).Warn("domain stopped behind bora's back: " + detail)
	d.queue.push(drivers.Event{Kind: kind, Lease: lease, Index: index, Host: h.cfg.Name, Detail: detail})
}

// classifyStop says what an unexpected stop means: the guest powering
// itself off is the end of its work, anything else is a failure.
func classifyStop(detail golibvirt.DomainEventStoppedDetailType) (drivers.EventKind, string) {
	switch detail {
	case golibvirt.DomainEventStoppedShutdown:
		return drivers.VMExited, "the guest shut down"
	case golibvirt.DomainEventStoppedDestroyed:
		return drivers.VMCrashed, "destroyed (not by bora)"
	case golibvirt.DomainEventStoppedCrashed:
		return drivers.VMCrashed, "the guest crashed"
	case golibvirt.DomainEventStoppedFailed:
		return drivers.VMCrashed, "the emulator failed"
	case golibvirt.DomainEventStoppedMigrated:
		return drivers.VMCrashed, "migrated away (not by bora)"
	case golibvirt.DomainEventStoppedSaved:
		return drivers.VMCrashed, "saved (not by bora)"
	default:
		return drivers.VMCrashed, "stopped unexpectedly"
	}
}
