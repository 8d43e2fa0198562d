// Package clock gives the daemon and its drivers one notion of time: the
// wall clock, the wall clock scaled by a factor (demos and CI), or a
// simulated clock that jumps to the next timer when everything waits.
//
// Core packages never call time.Now: they are handed a Clock.
package clock

import (
	"sync"
	"time"

	"github.com/bora-sched/bora/internal/minheap"
)

// Clock tells the time and sleeps.
type Clock interface {
	// Now is the current time on this clock.
	Now() time.Time
	// After delivers the clock's time once d has passed on this clock.
	After(d time.Duration) <-chan time.Time
	// WallDuration is how long d on this clock lasts on the wall clock: how long
	// to sleep (in real time) until something d ahead is due.
	WallDuration(d time.Duration) time.Duration
}

// Jumper is a clock that moves only when told to (Sim): whoever runs it
// jumps it to what comes next when nothing else is to be done, instead of
// sleeping WallDuration(d).
type Jumper interface {
	Clock
	// NextTimer is when the earliest timer set with After fires.
	NextTimer() (time.Time, bool)
	// Set moves the clock to t (never backwards), firing the timers due.
	Set(t time.Time)
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now.
func (Real) Now() time.Time { return time.Now() }

// After is time.After.
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }

// WallDuration is d: the real clock is the wall clock.
func (Real) WallDuration(d time.Duration) time.Duration { return d }

// Scaled runs Speed times faster than the wall clock from an origin:
// at wall time w it reads Base + (w - Wall) * Speed.
type Scaled struct {
	Base  time.Time // the clock's reading at Wall
	Wall  time.Time // the wall time the clock was started
	Speed float64   // > 0; 60 = one minute a second
	now   func() time.Time
}

// NewScaled starts a clock reading base now, running speed times faster
// than the wall clock.
func NewScaled(base time.Time, speed float64) *Scaled {
	return &Scaled{Base: base, Wall: time.Now(), Speed: speed, now: time.Now}
}

// Now reads the scaled clock.
func (c *Scaled) Now() time.Time {
	wall := time.Now
	if c.now != nil {
		wall = c.now
	}
	el := wall().Sub(c.Wall)
	return c.Base.Add(time.Duration(float64(el) * c.Speed))
}

// After sleeps d of scaled time.
func (c *Scaled) After(d time.Duration) <-chan time.Time {
	out := make(chan time.Time, 1)
	time.AfterFunc(c.WallDuration(d), func() { out <- c.Now() })
	return out
}

// WallDuration is d divided by the speed: at 60, a minute lasts a second.
func (c *Scaled) WallDuration(d time.Duration) time.Duration {
	return time.Duration(float64(d) / c.Speed)
}

// Sim is a simulated clock: time stands still until Jump moves it to the
// earliest pending timer (or a given time). The daemon jumps when it has
// nothing else to do, so a run takes as long as its decisions, not its
// schedule. Safe for concurrent use.
type Sim struct {
	mu     sync.Mutex
	now    time.Time
	timers minheap.Heap[timer]
	seq    uint64
}

// NewSim returns a simulated clock reading start.
func NewSim(start time.Time) *Sim { return &Sim{now: start} }

// Now reads the simulated clock.
func (c *Sim) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After fires when the clock has been moved at least d forward.
func (c *Sim) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(chan time.Time, 1)
	if d <= 0 {
		out <- c.now
		return out
	}
	c.seq++
	c.timers.Push(timer{at: c.now.Add(d), seq: c.seq, ch: out})
	return out
}

// WallDuration is d: simulated time does not follow the wall clock, so there is
// no better answer; the daemon jumps a Sim (Jumper) rather than sleep.
func (c *Sim) WallDuration(d time.Duration) time.Duration { return d }

// Waiting is the number of timers not yet fired.
func (c *Sim) Waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// NextTimer is when the earliest pending timer fires.
func (c *Sim) NextTimer() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return time.Time{}, false
	}
	return c.timers[0].at, true
}

// Set moves the clock to t (never backwards) and fires every timer due
// by then, in time order.
func (c *Sim) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
	for len(c.timers) > 0 && !c.timers[0].at.After(c.now) {
		tm := c.timers.Pop()
		tm.ch <- tm.at
	}
}

type timer struct {
	at  time.Time
	seq uint64
	ch  chan time.Time
}

// Before orders timers by firing time, then by when they were set.
func (a timer) Before(b timer) bool {
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	return a.seq < b.seq
}
