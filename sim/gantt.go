package sim

import (
	"iter"

	"github.com/bora-sched/bora/scheduler"
)

// ganttLog is the run's Gantt chart as the scheduler records it, kept in
// chunks: one slice grown by append copied the whole record each time it
// doubled, and a 30-day run on 144 hosts records hundreds of thousands
// of intervals (the copies were 4 % of its CPU time).
type ganttLog struct {
	chunks [][]scheduler.Interval
	n      int
}

// ganttChunk is the size of the chunks after the first ones, which
// double from 256 up to it.
const ganttChunk = 8192

// add appends iv.
func (g *ganttLog) add(iv scheduler.Interval) {
	k := len(g.chunks)
	if k == 0 || len(g.chunks[k-1]) == cap(g.chunks[k-1]) {
		size := 256
		if k > 0 {
			size = min(2*cap(g.chunks[k-1]), ganttChunk)
		}
		g.chunks = append(g.chunks, make([]scheduler.Interval, 0, size))
		k++
	}
	g.chunks[k-1] = append(g.chunks[k-1], iv)
	g.n++
}

// len is the number of intervals recorded.
func (g *ganttLog) len() int { return g.n }

// all yields the intervals in the order they were recorded.
func (g *ganttLog) all() iter.Seq[scheduler.Interval] {
	return func(yield func(scheduler.Interval) bool) {
		for _, c := range g.chunks {
			for _, iv := range c {
				if !yield(iv) {
					return
				}
			}
		}
	}
}
