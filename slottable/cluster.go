package slottable

import (
	"fmt"
	"math"
	"slices"
)

// A memo's question after an early end is whether the lease may now start
// before the start it found last time (fitAfterMemo). Before searching
// the hosts freed since (freedStarts, then EarliestFit over the ranges it
// gives), the table asks the open hosts' usage added up: N VMs of size
// per need, at every instant of [t, t+d), at least N times per free in
// each dimension over the open hosts together, which no placement host by
// host can beat. Only the starts where that much room holds over the
// whole interval are searched, none when there are none. On the 30-day
// trace on 144 hosts under conservative backfilling 178,304 of 233,349
// questions end there, and 15,053 (40,942 before) have freed ranges left
// to search; EarliestFit also sweeps from the first such start (README,
// "The open hosts' room added up").

// clusterProfile is the usage of the open hosts added up, over time: the
// times at which it changes, each with its delta, in a sorted array of
// blocks (each summarised: the sum of its deltas and the least and the
// greatest of its prefix sums, dimension by dimension), the blocks' sums
// in a Fenwick tree for the usage at the start of a block. It follows
// the hosts' change-point trees (Table.applyPair) while the table tracks
// freed capacity; a host closed leaves it with its usage and capacity.
// A host over its capacity somewhere (a resize, an admin's overbooking)
// would count its excess against the others' room, so while an open
// host is, the profile tells nothing.
type clusterProfile struct {
	dims   int
	capy   []int64 // the open hosts' capacity, added up
	over   []bool  // per host: its peak usage is over its capacity
	nOver  int     // the open hosts over
	firsts []int64 // each block's first time
	blocks []usageBlock
	fen    []int64 // 1-based Fenwick tree over the blocks' sums, dims values a node
	stale  []int   // the blocks made stale since the last refresh (or reindex)
}

// usageBlock is a run of the profile's change points.
type usageBlock struct {
	at     []int64 // times, ascending
	d      []int64 // deltas, dims values a time
	sum    []int64 // the sum of the deltas
	lo, hi []int64 // the least and the greatest sum of a non-empty prefix, unless stale
	// stale says lo and hi are to be worked out again (refresh): the
	// profile changes 6.5 times between two questions under --energy gesp
	// on 512 hosts, often in the same block. A read does not work them
	// out (concurrent reads of a table are allowed): it walks the block.
	stale bool
}

// usageBlockLen is the length a block is split back to; it splits when
// twice that.
const usageBlockLen = 16

// noRun marks goodStarts' run of room as not begun.
const noRun = math.MinInt64

// newClusterProfile returns the profile of table t's open hosts.
func newClusterProfile(t *Table) *clusterProfile {
	p := &clusterProfile{dims: t.Dims(), capy: make([]int64, t.Dims()), over: make([]bool, len(t.hosts))}
	for h := range t.hosts {
		p.over[h] = t.overCapacity(HostID(h)) // counted in nOver by openHost
		if !t.Closed(HostID(h)) {
			p.openHost(t, HostID(h), +1)
		}
	}
	return p
}

// openHost adds host h's capacity and usage to the profile (sign +1) or
// takes them out (-1).
func (p *clusterProfile) openHost(t *Table, h HostID, sign int64) {
	for k, c := range t.hosts[h].Capacity {
		p.capy[k] += sign * c
	}
	if p.over[h] {
		p.nOver += int(sign)
	}
	tree := &t.cp[h]
	var buf [4]int64
	for it := tree.seek(negInf, t.usageRoom(&buf)); it.n >= 0; { // every change point: none is at negInf
		key := tree.key(it)
		p.add(key, tree.step(&it), sign)
	}
}

// noteHost notes whether host h's peak usage is over its capacity, after
// either changed.
func (p *clusterProfile) noteHost(t *Table, h HostID) {
	for len(p.over) <= int(h) {
		p.over = append(p.over, false)
	}
	over := t.overCapacity(h)
	if over != p.over[h] && !t.Closed(h) { // counted while open
		if over {
			p.nOver++
		} else {
			p.nOver--
		}
	}
	p.over[h] = over
}

// overCapacity reports whether host h's peak usage is over its capacity
// in some dimension.
func (t *Table) overCapacity(h HostID) bool {
	o := int(h) * t.Dims()
	for k := range t.Dims() {
		if t.peak[o+k] > t.capv[o+k] {
			return true
		}
	}
	return false
}

// blockFor returns the block whose times range holds key: the last whose
// first time is at most key, or the first.
func (p *clusterProfile) blockFor(key int64) int {
	i, found := slices.BinarySearch(p.firsts, key)
	if found || i == 0 {
		return i
	}
	return i - 1
}

// add adds sign*delta to the profile at key.
func (p *clusterProfile) add(key int64, delta []int64, sign int64) {
	dims := p.dims
	if len(p.blocks) == 0 {
		p.blocks = append(p.blocks, usageBlock{})
	}
	fresh := len(p.firsts) == 0
	b := p.blockFor(key)
	blk := &p.blocks[b]
	i, found := slices.BinarySearch(blk.at, key)
	if found {
		d := blk.d[i*dims : (i+1)*dims]
		for k := range d {
			d[k] += sign * delta[k]
		}
		if allZero(d) {
			blk.at = slices.Delete(blk.at, i, i+1)
			blk.d = slices.Delete(blk.d, i*dims, (i+1)*dims)
		}
	} else {
		blk.at = slices.Insert(blk.at, i, key)
		blk.d = slices.Insert(blk.d, i*dims, delta...) // its place, then its value
		for k, x := range delta {
			blk.d[i*dims+k] = sign * x
		}
	}
	switch {
	case fresh:
		blk.summarize(dims)
		p.reindex()
	case len(blk.at) == 0:
		p.blocks = slices.Delete(p.blocks, b, b+1)
		p.reindex()
	case len(blk.at) > 2*usageBlockLen:
		upper := usageBlock{at: slices.Clone(blk.at[usageBlockLen:]), d: slices.Clone(blk.d[usageBlockLen*dims:])}
		blk.at, blk.d = blk.at[:usageBlockLen], blk.d[:usageBlockLen*dims]
		blk.summarize(dims)
		upper.summarize(dims)
		p.blocks = slices.Insert(p.blocks, b+1, upper)
		p.reindex()
	default:
		for k := range blk.sum {
			blk.sum[k] += sign * delta[k]
		}
		if !blk.stale {
			blk.stale = true
			p.stale = append(p.stale, b)
		}
		p.firsts[b] = blk.at[0]
		for j := b + 1; j < len(p.fen)/dims; j += j & -j {
			f := p.fen[j*dims : (j+1)*dims]
			for k := range f {
				f[k] += sign * delta[k]
			}
		}
	}
}

// summarize rewrites the block's summary.
func (b *usageBlock) summarize(dims int) {
	if b.sum == nil {
		b.sum, b.lo, b.hi = make([]int64, dims), make([]int64, dims), make([]int64, dims)
	}
	clear(b.sum)
	for i := range b.at {
		for k, x := range b.d[i*dims : (i+1)*dims] {
			s := b.sum[k] + x
			b.sum[k] = s
			if i == 0 || s < b.lo[k] {
				b.lo[k] = s
			}
			if i == 0 || s > b.hi[k] {
				b.hi[k] = s
			}
		}
	}
	b.stale = false
}

// refresh works out the prefix sums of the blocks made stale since the
// last refresh: before a memo's question, which writes to the table too.
func (p *clusterProfile) refresh() {
	for _, b := range p.stale {
		if blk := &p.blocks[b]; blk.stale {
			blk.summarize(p.dims)
		}
	}
	p.stale = p.stale[:0]
}

// reindex rewrites the blocks' first times and the Fenwick tree (and the
// stale blocks' prefix sums: their places moved).
func (p *clusterProfile) reindex() {
	dims := p.dims
	p.firsts = p.firsts[:0]
	for i := range p.blocks {
		if b := &p.blocks[i]; b.stale {
			b.summarize(dims)
		}
		p.firsts = append(p.firsts, p.blocks[i].at[0])
	}
	p.stale = p.stale[:0]
	n := len(p.blocks)
	p.fen = slices.Grow(p.fen[:0], (n+1)*dims)[:(n+1)*dims]
	clear(p.fen)
	for i, b := range p.blocks {
		j := i + 1
		copy(p.fen[j*dims:(j+1)*dims], b.sum) // own sum, then passed up below
	}
	for j := 1; j <= n; j++ {
		if up := j + j&-j; up <= n {
			f, g := p.fen[j*dims:(j+1)*dims], p.fen[up*dims:(up+1)*dims]
			for k := range g {
				g[k] += f[k]
			}
		}
	}
}

// usageBefore writes to out the sum of the deltas of the blocks before
// block b.
func (p *clusterProfile) usageBefore(b int, out []int64) {
	clear(out)
	for j := b; j > 0; j -= j & -j {
		for k, x := range p.fen[j*p.dims : (j+1)*p.dims] {
			out[k] += x
		}
	}
}

// maxClusterRanges bounds how many separate ranges fitAfterMemo takes
// from goodStarts.
const maxClusterRanges = 8

// goodStarts appends to out, in time order and disjoint, the starts t in
// [from, last] at which the usage stays at most lim over all of [t, t+d),
// dimension by dimension (lim at math.MaxInt64/2 for a dimension that
// does not count), lim being raised by extra from raiseAt on. No start
// outside them has that room. The ranges are at most most (at least 1):
// the last of them then runs on to last, and the walk stops there.
func (p *clusterProfile) goodStarts(from, last, d int64, lim, extra []int64, raiseAt int64, most int, out [][2]int64) [][2]int64 {
	if last < from {
		return out
	}
	var ub, hb [4]int64
	u, raisedTh := vecIn(&ub, p.dims), vecIn(&hb, p.dims)
	for k := range raisedTh {
		raisedTh[k] = lim[k] + extra[k]
	}
	th, raised := lim, false // the thresholds; raised: from raiseAt on
	ok := func() bool {
		for k, x := range u {
			if x > th[k] {
				return false
			}
		}
		return true
	}
	b, i := 0, 0
	if len(p.blocks) > 0 {
		b = p.blockFor(from)
		p.usageBefore(b, u)
		blk := &p.blocks[b]
		for ; i < len(blk.at) && blk.at[i] <= from; i++ {
			for k, x := range blk.d[i*p.dims : (i+1)*p.dims] {
				u[k] += x
			}
		}
	}
	if from >= raiseAt {
		th, raised = raisedTh, true
	}
	run := int64(noRun) // where the run of room began
	if ok() {
		run = from
	}
	full := false             // most ranges found: the last runs on to last
	emit := func(end int64) { // the run ends at end
		if a, b := run, min(end-d, last); a <= b {
			if out = append(out, [2]int64{a, b}); len(out) == most {
				out[len(out)-1][1], full = last, true
			}
		}
		run = noRun
	}
	horizon := addSat(last, d)
	// step brings the walk to time x (the next change point, or
	// math.MaxInt64 past the last): the virtual change point at raiseAt
	// first; done when no start is left to find.
	step := func(x int64) (done bool) {
		if !raised && raiseAt <= x {
			th, raised = raisedTh, true
			if run == noRun && raiseAt <= last && ok() {
				run = raiseAt
			}
		}
		switch {
		case run != noRun && x >= horizon: // every start from run on has room
			emit(x)
			return true
		case run == noRun && x > last:
			return true
		}
		return full
	}
	for ; b < len(p.blocks); b, i = b+1, 0 {
		blk := &p.blocks[b]
		if i == 0 {
			if step(blk.at[0]) {
				return out
			}
			// Passed over whole where the thresholds hold over it.
			if (raised || raiseAt > blk.at[len(blk.at)-1]) && p.skips(blk, u, run != noRun, th) {
				for k, x := range blk.sum {
					u[k] += x
				}
				continue
			}
		}
		for ; i < len(blk.at); i++ {
			x := blk.at[i]
			if (!raised && raiseAt <= x || run != noRun && x >= horizon || run == noRun && x > last) && step(x) {
				return out
			}
			good := true
			for k, dx := range blk.d[i*p.dims : (i+1)*p.dims] {
				v := u[k] + dx
				u[k] = v
				if v > th[k] {
					good = false
				}
			}
			switch {
			case !good && run != noRun:
				if emit(x); full {
					return out
				}
			case good && run == noRun:
				run = x
			}
		}
	}
	if !step(math.MaxInt64) && run != noRun {
		emit(math.MaxInt64)
	}
	return out
}

// skips reports whether goodStarts may pass over block blk whole, its
// usage before the block being u and the thresholds th over the whole
// block: outside a run, when every prefix of the block leaves some
// dimension over its threshold (no run begins inside); inside one, when
// none does (the run goes on through it). Not a stale block.
func (p *clusterProfile) skips(blk *usageBlock, u []int64, inRun bool, th []int64) bool {
	if blk.stale {
		return false
	}
	if !inRun {
		for k := range u {
			if u[k]+blk.lo[k] > th[k] {
				return true
			}
		}
		return false
	}
	for k := range u {
		if u[k]+blk.hi[k] > th[k] {
			return false
		}
	}
	return true
}

// clusterStarts appends to out the ranges of starts in [from, last] at
// which q (for d) may fit as far as the open hosts' usage added up tells
// (goodStarts, at most most ranges); none fits outside them. With held
// (not nil), what the asking lease's own reservations hold together
// (ownHeld), left out by q, counts as free from ownFrom, the first of
// them, on. The whole of [from, last] when the table keeps no such
// profile, or while an open host is over its capacity.
func (t *Table) clusterStarts(q *Query, ownFrom int64, held []int64, from, last, d int64, most int, out [][2]int64) [][2]int64 {
	p := t.cl
	if p == nil || p.nOver > 0 {
		if from <= last {
			out = append(out, [2]int64{from, last})
		}
		return out
	}
	var lb [4]int64
	lim := vecIn(&lb, p.dims)
	for k := range lim {
		var per int64
		if k < len(q.Per) {
			per = q.Per[k]
		}
		lim[k] = math.MaxInt64 / 2 // a dimension it does not use
		if per > 0 {
			lim[k] = p.capy[k] - int64(q.N)*per
		}
	}
	if held == nil {
		var hb [4]int64
		held, ownFrom = vecIn(&hb, p.dims), posInf
	}
	return p.goodStarts(from, last, d, lim, held, ownFrom, most, out)
}

// intersectRanges returns the starts that both a and b hold (each in
// time order and disjoint), appended to out and capped as mergeRanges
// caps them.
func intersectRanges(a, b, out [][2]int64) [][2]int64 {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		if lo, hi := max(a[i][0], b[j][0]), min(a[i][1], b[j][1]); lo <= hi {
			out = append(out, [2]int64{lo, hi})
		}
		if a[i][1] < b[j][1] {
			i++
		} else {
			j++
		}
	}
	return mergeRanges(out)
}

// clusterFrom returns the first start in [from, until] at which q may fit
// as far as the open hosts' usage added up tells, false when none may:
// from itself for a question the profile cannot answer (some hosts only,
// reservations left out) or while the table keeps none.
func (t *Table) clusterFrom(q *Query, from, until int64) (int64, bool) {
	if t.cl == nil || q.Hosts != nil || q.Ignore != nil || q.SkipHidden || len(q.ignoreSlots) > 0 {
		return from, true
	}
	var one [1][2]int64
	rs := t.clusterStarts(q, posInf, nil, from, until, max(int64(q.Duration), 1), 1, one[:0])
	if len(rs) == 0 {
		return 0, false
	}
	return rs[0][0], true
}

// checkCluster reports ErrCorrupt when the profile of the open hosts'
// usage differs from one made from the hosts' trees (its change points
// and deltas, capacity, hosts over capacity), or its blocks from their
// entries (sizes, first times, sums, prefix sums, Fenwick tree).
func (t *Table) checkCluster() error {
	p := t.cl
	if p == nil {
		return nil
	}
	fresh := newClusterProfile(t)
	type point struct {
		at int64
		d  string
	}
	flat := func(q *clusterProfile) []point {
		var out []point
		for _, b := range q.blocks {
			for i, at := range b.at {
				out = append(out, point{at, fmt.Sprint(b.d[i*q.dims : (i+1)*q.dims])})
			}
		}
		return out
	}
	if a, b := flat(p), flat(fresh); !slices.Equal(a, b) {
		return corrupt("cluster profile: change points %v, the hosts' %v", a, b)
	}
	if !slices.Equal(p.capy, fresh.capy) || p.nOver != fresh.nOver || !slices.Equal(p.over, fresh.over) {
		return corrupt("cluster profile: capacity %v, %d over %v; the hosts' %v, %d over %v",
			p.capy, p.nOver, p.over, fresh.capy, fresh.nOver, fresh.over)
	}
	before := make([]int64, p.dims)
	got := make([]int64, p.dims)
	for i := range p.blocks {
		b := p.blocks[i]
		if len(b.at) == 0 || len(b.at) > 2*usageBlockLen || p.firsts[i] != b.at[0] {
			return corrupt("cluster profile: block %d of %d times, first %d (noted %d)", i, len(b.at), b.at[0], p.firsts[i])
		}
		if p.usageBefore(i, got); !slices.Equal(got, before) {
			return corrupt("cluster profile: usage before block %d %v, its blocks' sums %v", i, got, before)
		}
		w := usageBlock{at: b.at, d: b.d}
		w.summarize(p.dims)
		if !slices.Equal(w.sum, b.sum) || !b.stale && (!slices.Equal(w.lo, b.lo) || !slices.Equal(w.hi, b.hi)) {
			return corrupt("cluster profile: block %d summary %v %v %v, its entries' %v %v %v", i, b.sum, b.lo, b.hi, w.sum, w.lo, w.hi)
		}
		for k, x := range b.sum {
			before[k] += x
		}
	}
	return nil
}
