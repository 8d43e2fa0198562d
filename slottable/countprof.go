package slottable

import (
	"math"
	"slices"
	"sync/atomic"
)

// Count profiles: a host's count of VMs of one size, as a flat step
// function, for the sweeps of EarliestFit and of the freed ranges.
//
// After an early end the scheduler asks every queued lease whether it can
// start earlier, and each question sweeps the same hosts again: in the
// 30-day SDSC run on 144 hosts, 94 % of the walks of a host's change
// points found the host as the walk before had left it. A sweep only needs
// how many VMs of the query's size fit from each change point on, so the
// host keeps the last such step function it was swept for (per size),
// read straight off two arrays until the host's profile changes. A host
// whose profile changes between every two sweeps (the queue planned from
// scratch, reservation after reservation) never gets one: a profile is
// made only when a host is swept again and again without a change.

// countProfile is host h's count of VMs of size per (uncapped) as a step
// function of time: c0 before at[0], c[i] from at[i] to at[i+1]. It is
// made at the host's version ver and never changes after.
type countProfile struct {
	ver uint64
	per []int64
	c0  int
	at  []int64
	c   []int64 // at's counts (int64: both share one allocation)
	// within says that the host's usage never exceeds its capacity: a
	// reservation of k VMs of size per left out then adds exactly k to the
	// count wherever it holds (ownRuns).
	within bool
}

// profCell holds a host's last count profile. Sweeps read and replace it
// while other readers may do the same (concurrent reads of a table are
// allowed), so both fields are atomic and a profile is immutable.
type profCell struct {
	p    atomic.Pointer[countProfile]
	seen atomic.Uint64 // 1 + the version last walked, << 8, and the walks since
}

// touch notes that host h's change points or capacity changed: its count
// profiles no longer hold.
func (t *Table) touch(h HostID) {
	t.ver[h]++
	t.bump()
}

// countProfileOf returns host h's count profile for VMs of size per, or
// nil (the caller walks the host instead) when it has none at its version
// and fewer than walksBeforeProfile walks were made since the first at
// that version.
func (t *Table) countProfileOf(h HostID, per []int64) *countProfile {
	if !countProfiles {
		return nil
	}
	cell, ver := t.prof[h], t.ver[h]
	if p := cell.p.Load(); p != nil && p.ver == ver && slices.Equal(p.per, per) {
		return p
	}
	// seen holds the version in its high bits and the walks made at it
	// in its low byte.
	seen := cell.seen.Load()
	if seen>>8 != ver+1 {
		cell.seen.Store((ver + 1) << 8)
		return nil
	}
	if seen&0xff < walksBeforeProfile {
		cell.seen.Store(seen + 1)
		return nil
	}
	p := t.makeCountProfile(h, ver, per, cell.p.Load())
	cell.p.Store(p)
	return p
}

// heldProfile returns host h's count profile for VMs of size per when it
// has one at its version, without counting a walk (nil otherwise).
func (t *Table) heldProfile(h HostID, per []int64) *countProfile {
	if !countProfiles {
		return nil
	}
	if p := t.prof[h].p.Load(); p != nil && p.ver == t.ver[h] && slices.Equal(p.per, per) {
		return p
	}
	return nil
}

// after returns the index of p's first change point after t (len(p.at)
// when none): sort.Search's answer, without its call through a closure
// (stepProfile asks it millions of times a run).
func (p *countProfile) after(t int64) int {
	lo, hi := 0, len(p.at)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.at[m] > t {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// before returns p's count before its change point i (at after(t): the
// count at t).
func (p *countProfile) before(i int) int {
	if i == 0 {
		return p.c0
	}
	return int(p.c[i-1])
}

// least returns the least count of p over [from, to), capped at n: the
// count at its start, and at each change point inside.
func (p *countProfile) least(from, to int64, n int) int {
	i := p.after(from)
	m := p.before(i)
	for ; i < len(p.at) && p.at[i] < to && m > 0; i++ {
		m = min(m, int(p.c[i]))
	}
	return min(m, n)
}

// walksBeforeProfile is how many walks of a host at one version are made
// after the first before its count profile is: making one walks every
// change point of the host and allocates, a sweep walks only up to its
// horizon. Measured (perf stat, three runs each): on the SDSC run on 144
// hosts 1 and 4 take the same 7.5 % fewer instructions than no profiles;
// on a ch.3 run (32 hosts, MOV; 5.6 million reads of 414,000 profiles of
// 15 change points at 4), where a short walk costs about what a read
// does, 1 took 3 to 4 % more cycles than no profiles for the same
// instructions (the profiles' allocations), 4 about 1 %, within the noise.
var walksBeforeProfile = uint64(4)

// countProfiles turns count profiles on (tests compare with them off).
var countProfiles = true

// makeCountProfile walks host h's change points in order. The size vector
// of the host's last profile (old, or nil) is shared when it is the same
// (it never changes).
func (t *Table) makeCountProfile(h HostID, ver uint64, per []int64, old *countProfile) *countProfile {
	pool, capy := &t.cp[h], t.hosts[h].Capacity
	var buf [4]int64
	usage := t.usageRoom(&buf)
	it := pool.seek(negInf, usage)
	k := pool.n                // the host's change points
	room := make([]int64, 2*k) // at, then c
	p := &countProfile{ver: ver, c0: fitCount(capy, usage, per, math.MaxInt), at: room[:0:k], c: room[k:k],
		within: withinCapacity(capy, usage)}
	if old != nil && slices.Equal(old.per, per) {
		p.per = old.per
	} else {
		p.per = slices.Clone(per)
	}
	for it.n >= 0 {
		at := pool.key(it)
		for j, v := range pool.step(&it) {
			usage[j] += v
		}
		p.at = append(p.at, at)
		p.c = append(p.c, int64(fitCount(capy, usage, per, math.MaxInt)))
		p.within = p.within && withinCapacity(capy, usage)
	}
	return p
}

// usageRoom returns a zeroed usage vector of the table's dimensions in
// buf when they fit there (the caller's stack), else in new memory.
func (t *Table) usageRoom(buf *[4]int64) []int64 { return vecIn(buf, t.Dims()) }

// vecIn returns a zero vector of dims values, in buf's room when it
// suffices (buf unused before).
func vecIn(buf *[4]int64, dims int) []int64 {
	if dims > len(buf) {
		return make([]int64, dims)
	}
	return buf[:dims]
}

// withinCapacity reports whether used is at most capacity in every
// dimension.
func withinCapacity(capacity, used []int64) bool {
	for j, u := range used {
		if u > capacity[j] {
			return false
		}
	}
	return true
}

// ownRun is a reservation left out of a sweep, read as k VMs of the
// query's size over [s, e).
type ownRun struct {
	s, e int64
	k    int
}

// ownRuns sets s.own to the reservations in slots (all on host h, whose
// count profile is p) that are left out over [s.from, horizon), when each
// of those holds a whole number k of VMs of the query's size and the host
// is never over capacity: then leaving one out adds k to the count
// wherever it holds (in every dimension the query asks for, the free
// room grows by k VMs' worth), so the count is the profile's plus theirs,
// and it changes only at the profile's change points and at their
// bounds. It reports false when that does not apply.
func (s *fitSweep) ownRuns(p *countProfile, horizon int64, slots []int32) bool {
	if !p.within {
		return false
	}
	t, per := s.t, s.q.Per
	own := s.own[:0]
	for _, sl := range slots {
		nd := &t.it.nodes[sl]
		if nd.end <= s.from || nd.start >= horizon {
			continue
		}
		k, ok := vmsOf(t.rs[sl].Res, per)
		if !ok {
			return false
		}
		own = append(own, ownRun{s: nd.start, e: nd.end, k: k})
	}
	s.own = own
	return true
}

// vmsOf returns k when res is k VMs of size per in every dimension per
// asks for (k >= 0); false otherwise, or when per asks for nothing.
func vmsOf(res, per []int64) (int, bool) {
	k, set := int64(0), false
	for j, p := range per {
		if p <= 0 {
			continue
		}
		v := res[j]
		if v%p != 0 || set && v/p != k {
			return 0, false
		}
		k, set = v/p, true
	}
	return int(k), set
}

// stepProfile steps host h's count from profile p plus the VMs of s.own
// left out there, from s.from up to horizon, as the walk would. The
// count changes at the profile's change points and at the starts and
// ends of s.own: one of those is not a change point of the host when
// another reservation ends or starts there too (a plan laid out right
// after another), and left out it changes the count there all the same.
func (s *fitSweep) stepProfile(h HostID, p *countProfile, horizon int64, final bool) {
	n := s.q.N
	if len(s.own) == 0 { // most hosts: the profile's change points alone
		i := p.after(s.from)
		cur := min(p.before(i), n)
		s.lv = s.lv[:0]
		if cur > 0 {
			s.lv = append(s.lv, level{h: cur, a: s.from})
		}
		for ; i < len(p.at) && p.at[i] < horizon; i++ {
			if c := min(int(p.c[i]), n); c != cur {
				s.step(h, p.at[i], c, false)
				cur = c
			}
		}
		s.step(h, horizon, 0, final)
		return
	}
	w, c := s.countSteps(p, horizon)
	cur := min(c, n)
	s.lv = s.lv[:0]
	if cur > 0 {
		s.lv = append(s.lv, level{h: cur, a: s.from})
	}
	for {
		at, c, ok := w.next()
		if !ok {
			s.step(h, horizon, 0, final)
			return
		}
		if c = min(c, n); c != cur {
			s.step(h, at, c, false)
			cur = c
		}
	}
}

// countSteps walks a host's count from its profile p plus the VMs of
// s.own (stepProfile, startsOn): from s.from up to horizon, at each of
// the profile's change points and of the bounds of s.own.
type countSteps struct {
	s       *fitSweep
	p       *countProfile
	bs      []int64 // s.own's bounds
	i, j    int     // the next of p's change points, of bs
	base    int     // p's count
	horizon int64
}

// countSteps starts the walk: it returns it and the count at s.from.
func (s *fitSweep) countSteps(p *countProfile, horizon int64) (countSteps, int) {
	i := p.after(s.from)
	base := p.before(i)
	return countSteps{s: s, p: p, bs: s.ownBounds(horizon), i: i, base: base, horizon: horizon}, base + s.ownAt(s.from)
}

// next returns the next time the count may change before the horizon and
// the count from then on; false at the horizon.
func (w *countSteps) next() (int64, int, bool) {
	p, bs := w.p, w.bs
	var at int64
	switch {
	case w.i < len(p.at) && p.at[w.i] < w.horizon && (w.j == len(bs) || p.at[w.i] <= bs[w.j]):
		at, w.base = p.at[w.i], int(p.c[w.i])
		w.i++
	case w.j < len(bs):
		at = bs[w.j]
	default:
		return 0, 0, false
	}
	for w.j < len(bs) && bs[w.j] == at {
		w.j++
	}
	return at, w.base + w.s.ownAt(at), true
}

// ownBounds returns the starts and ends of s.own in (s.from, horizon),
// sorted (duplicates kept), in s's room.
func (s *fitSweep) ownBounds(horizon int64) []int64 {
	bs := s.ownEdges[:0]
	if len(s.own) == 0 { // most hosts: nothing to sort
		return bs
	}
	for _, o := range s.own {
		for _, at := range [2]int64{o.s, o.e} {
			if at > s.from && at < horizon {
				bs = append(bs, at)
			}
		}
	}
	slices.Sort(bs)
	s.ownEdges = bs
	return bs
}

// ownAt returns the VMs of s.own that hold at instant at.
func (s *fitSweep) ownAt(at int64) int {
	k := 0
	for _, o := range s.own {
		if o.s <= at && at < o.e {
			k += o.k
		}
	}
	return k
}
