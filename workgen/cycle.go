package workgen

import (
	"math"
	"sort"
	"time"
)

// dailyCycle turns a homogeneous arrival process into one with a daily
// cycle by a change of time: a day of "operational" time, in which
// arrivals come at a constant mean rate, is stretched onto a day of wall
// time so that each half-hour slot of the day receives its weight's share
// of the arrivals. Whole days map onto whole days, so the number of
// arrivals per day and the mean inter-arrival time are kept.
type dailyCycle struct {
	cum []float64 // cum[s]: the share of a day's arrivals before slot s; cum[48] = 1
}

const cycleSlots = 48 // half-hour slots of a day

// newCycle is the cycle whose half-hour slot s (00:00 + s x 30 min)
// receives the share w[s] / sum(w) of a day's arrivals.
func newCycle(w []float64) dailyCycle {
	total := 0.0
	for _, x := range w {
		total += x
	}
	c := dailyCycle{cum: make([]float64, cycleSlots+1)}
	for s := range w {
		c.cum[s+1] = c.cum[s] + w[s]/total
	}
	c.cum[cycleSlots] = 1
	return c
}

const day = 24 * time.Hour

// wall maps operational time (seconds) to wall time (seconds).
func (c dailyCycle) wall(op float64) float64 {
	d := day.Seconds()
	days := math.Floor(op / d)
	f := op/d - days // share of the day's arrivals
	s := sort.SearchFloat64s(c.cum, f)
	if s > 0 {
		s--
	}
	for s < cycleSlots-1 && c.cum[s+1] <= f {
		s++
	}
	within := 0.0
	if w := c.cum[s+1] - c.cum[s]; w > 0 {
		within = (f - c.cum[s]) / w
	}
	return days*d + (float64(s)+within)*d/cycleSlots
}

// op maps wall time back to operational time: the inverse of wall.
func (c dailyCycle) op(wall float64) float64 {
	d := day.Seconds()
	days := math.Floor(wall / d)
	slot := (wall/d - days) * cycleSlots
	s := min(int(slot), cycleSlots-1)
	f := c.cum[s] + (slot-float64(s))*(c.cum[s+1]-c.cum[s])
	return (days + f) * d
}
