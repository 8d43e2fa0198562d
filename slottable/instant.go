package slottable

import (
	"math"
	"slices"
	"sync/atomic"
)

// Under aggressive backfilling the scheduler asks every queued lease past
// the reserved ones whether it can start now (EarliestFit with From and
// Until the same instant: fitSweep.only), after every early end; only
// reads every open host's maximum usage over the lease's interval, and in
// a busy cluster nearly every answer is no (BenchmarkScale at 24,000
// leases on 256 hosts under aggressive backfilling spent half its time
// there). Between two changes of the table those questions share their
// instant, so the table keeps, for the last instant asked and one VM
// size, how many VMs the open hosts hold together over [at, at+d) as a
// function of d: each host's least count over the interval (which falls
// as d grows), added up. Where that sum is below a lease's VMs the answer
// is no without reading the hosts again.

// instantRoom is room on the table at stamp from instant at for VMs of
// size per: total VMs at the instant, and the falls of the sum as the
// interval grows (at each offset in drops, in order, by the amount
// falls says, the running sum of those at and before it). It never
// changes after it is made: concurrent readers of the table share it
// through an atomic pointer, as they share count profiles.
type instantRoom struct {
	stamp uint64
	at    int64
	per   []int64
	total int64
	drops []int64 // offsets from at, ascending
	falls []int64 // falls[i]: the sum's fall once the offsets up to drops[i] are in
}

// instantCell holds the table's last instantRoom.
type instantCell struct{ p atomic.Pointer[instantRoom] }

// maxHostCount caps one host's count in the sum (a size asking for
// nothing fits without end).
const maxHostCount = math.MaxInt32

// roomOver returns how many VMs of size per the open hosts hold together
// over [at, at+d) (d >= 1), each host counted at its least over the
// interval, with no host capped but at maxHostCount. It reads the table's
// cache when it holds that instant and size for the table as it is.
func (t *Table) roomOver(at, d int64, per []int64) int64 {
	var r *instantRoom
	if t.instant != nil { // nil: a table not made by New, which keeps none
		r = t.instant.p.Load()
	}
	if r == nil || r.stamp != t.stamp || r.at != at || !slices.Equal(r.per, per) {
		r = t.instantRoomAt(at, per)
		if t.instant != nil {
			t.instant.p.Store(r)
		}
	}
	// The change points at offsets below d lie in [at, at+d).
	i, _ := slices.BinarySearch(r.drops, d)
	if i == 0 {
		return r.total
	}
	return r.total - r.falls[i-1]
}

// instantRoomAt makes the instantRoom of the table as it is.
func (t *Table) instantRoomAt(at int64, per []int64) *instantRoom {
	r := &instantRoom{stamp: t.stamp, at: at, per: slices.Clone(per)}
	var buf [4]int64
	used := t.usageRoom(&buf)
	type fall struct{ off, by int64 }
	var falls []fall
	for i := range t.hosts {
		h := HostID(i)
		if t.Closed(h) {
			continue
		}
		clear(used)
		p, capy := &t.cp[h], t.hosts[h].Capacity
		it := p.seek(at, used)
		cur := int64(min(fitCount(capy, used, per, maxHostCount), maxHostCount))
		r.total += cur
		for cur > 0 && it.n >= 0 {
			off := p.key(it) - at
			for j, v := range p.step(&it) {
				used[j] += v
			}
			if c := int64(fitCount(capy, used, per, maxHostCount)); c < cur {
				falls = append(falls, fall{off, cur - c})
				cur = c
			}
		}
	}
	slices.SortFunc(falls, func(a, b fall) int { return cmpInt64(a.off, b.off) })
	var sum int64
	for _, f := range falls {
		if n := len(r.drops); n > 0 && r.drops[n-1] == f.off {
			sum += f.by
			r.falls[n-1] = sum
			continue
		}
		sum += f.by
		r.drops = append(r.drops, f.off)
		r.falls = append(r.falls, sum)
	}
	return r
}

// noRoomAt reports whether q surely does not fit at instant at (the start
// fitSweep.only asks about): the open hosts hold fewer than q.N VMs of its
// size together over [at, at+duration), each at its least count there,
// with every reservation counted. only counts each host at its greatest
// usage over the interval, dimension by dimension, which is no more VMs.
// False when q leaves some reservations out or skips the hidden ones
// (either may free room the sum does not see).
func (t *Table) noRoomAt(q *Query, at int64) bool {
	if q.Ignore != nil || q.SkipHidden || at == negInf || at == posInf {
		return false
	}
	return t.roomOver(at, max(int64(q.Duration), 1), q.Per) < int64(q.N)
}

// bump notes a change of the table that may change how many VMs fit
// somewhere: a host's change points, capacity or closed state, or a new
// host (an instantRoom holds for one stamp).
func (t *Table) bump() { t.stamp++ }
