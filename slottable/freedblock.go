package slottable

import "math"

// The scans of the history (freedStarts, changedSince) go over every
// entry since a memo's mark, and most of those are no room and no change
// for the memo: after a fixed lease the scheduler removes every queued
// lease's reservations and adds most of them back as they were, which
// leaves their removals void and their Adds cancelling those, and the
// entries of the leases planned after the memo's lease are absent at its
// mark, or cancel out there. With a queue that grows with the cluster
// those entries grow with it, for every lease planned. Both histories
// keep a summary of each block of histBlockLen sequence numbers, so that
// a scan jumps over a block whose entries it would all pass over one by
// one: it sees the entries it saw before, less some it skipped anyway.

// histBlockLen is how many sequence numbers a block covers (a block
// holds at most that many entries of each history).
const histBlockLen = 64

// freedBlock summarises the freed entries with sequence numbers in one
// block, over those not void: how many there are; the least
// absence.before among them (0 when one's is not known), below which a
// mark sees them all as absent (freedStarts); the greatest pairLo and
// least pairHi, between which a mark sees them all cancel out
// (changedSince); and the hull [minS, maxE) of their intervals, which a
// scan for room over a window it does not overlap passes over
// (freedIter). The bounds are math.MaxUint64, 0, math.MaxUint64, posInf
// and negInf when there is none. stale says that an entry was voided
// since the bounds were worked out (they may be too loose, which only
// skips less).
type freedBlock struct {
	live       int
	minBefore  uint64
	maxPairLo  uint64
	minPairHi  uint64
	minS, maxE int64
	stale      bool
}

var emptyFreedBlock = freedBlock{minBefore: math.MaxUint64, minPairHi: math.MaxUint64, minS: posInf, maxE: negInf}

// include widens b's bounds to take in e.
func (b *freedBlock) include(e *freedEntry) {
	b.minBefore = min(b.minBefore, e.absent.before)
	b.maxPairLo = max(b.maxPairLo, e.pairLo)
	b.minPairHi = min(b.minPairHi, e.pairHi)
	b.minS = min(b.minS, e.s)
	b.maxE = max(b.maxE, e.e)
}

// block returns the summary of the freed block holding sequence number
// seq, adding blocks up to it (entries are logged in sequence order).
func (f *freedLog) block(seq uint64) *freedBlock {
	b := seq / histBlockLen
	if len(f.blocks) == 0 {
		f.blk0 = b
	}
	for b-f.blk0 >= uint64(len(f.blocks)) {
		f.blocks = append(f.blocks, emptyFreedBlock)
	}
	return &f.blocks[b-f.blk0]
}

// noteLogged counts a new freed entry in its block's summary.
func (f *freedLog) noteLogged(e *freedEntry) {
	blk := f.block(e.seq)
	blk.live++
	blk.include(e)
}

// noteVoided takes a voided entry out of its block's count.
func (f *freedLog) noteVoided(seq uint64) {
	b := seq / histBlockLen
	if b < f.blk0 || b-f.blk0 >= uint64(len(f.blocks)) {
		return
	}
	blk := &f.blocks[b-f.blk0]
	blk.live--
	blk.stale = true
}

// forgetBlocks drops the summaries of the blocks wholly before mark (the
// block holding mark keeps counting its forgotten entries: it is only
// skipped less).
func (f *freedLog) forgetBlocks(mark uint64) {
	b := mark / histBlockLen
	if len(f.blocks) > 0 && b > f.blk0 {
		n := min(b-f.blk0, uint64(len(f.blocks)))
		f.blocks = f.blocks[n:]
		f.blk0 += n
	}
	if len(f.rblocks) > 0 && b > f.rblk0 {
		n := min(b-f.rblk0, uint64(len(f.rblocks)))
		f.rblocks = f.rblocks[n:]
		f.rblk0 += n
	}
}

// blockEnd returns the position of the first entry after position i
// that is not in the block of the entry at i.
func (f *freedLog) blockEnd(i int) int {
	seq := f.ents[i].seq
	next := (seq/histBlockLen + 1) * histBlockLen
	// Sequence numbers rise by at least one a position, so the block ends
	// by position i + (next - seq), exactly there when none is missing.
	hi := min(i+int(next-seq), len(f.ents))
	if f.ents[hi-1].seq < next {
		return hi
	}
	return searchEnd(i, hi, func(j int) bool { return f.ents[j].seq < next })
}

// searchEnd returns the first position in (i, hi] at which before is
// false (before is true up to some position, then false).
func searchEnd(i, hi int, before func(int) bool) int {
	lo := i + 1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if before(m) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// skippable reports whether a scan for mark may jump over the block of
// the freed entry at position i, whose entries end at position end: none
// is live, or every live one was freed over an interval outside [lo, hi),
// or, for absent, is surely absent at mark (freedIter), and otherwise
// cancelled out by its Add's raised entry (changedSince).
func (f *freedLog) skippable(i, end int, mark uint64, absent bool, lo, hi int64) bool {
	b := f.ents[i].seq / histBlockLen
	if b < f.blk0 || b-f.blk0 >= uint64(len(f.blocks)) {
		return false
	}
	blk := &f.blocks[b-f.blk0]
	if blk.stale {
		live := blk.live
		*blk = emptyFreedBlock
		blk.live = live
		for j := f.index(b * histBlockLen); j < end; j++ { // the whole block, wherever the scan began
			if e := &f.ents[j]; !e.void {
				blk.include(e)
			}
		}
	}
	if blk.live <= 0 {
		return true
	}
	if blk.minS >= hi || blk.maxE <= lo {
		return true
	}
	if absent {
		return mark < blk.minBefore
	}
	return blk.maxPairLo <= mark && mark < blk.minPairHi
}

// raisedBlock summarises the raised entries with sequence numbers in one
// block: the least readds among those not gone (math.MaxUint64 when
// none), below which a mark sees them all cancel out, and the hull
// [minS, maxE) of their intervals, which a scan for a change over an
// interval it does not overlap passes over (changedSince; posInf and
// negInf when there is none). stale says that an entry went gone since
// they were worked out.
type raisedBlock struct {
	minReadds  uint64
	minS, maxE int64
	stale      bool
}

var emptyRaisedBlock = raisedBlock{minReadds: math.MaxUint64, minS: posInf, maxE: negInf}

// include widens b's bounds to take in x.
func (b *raisedBlock) include(x *raisedEntry) {
	b.minReadds = min(b.minReadds, x.readds)
	b.minS = min(b.minS, x.s)
	b.maxE = max(b.maxE, x.e)
}

// rblock returns the summary of the raised block holding sequence number
// seq, adding blocks up to it.
func (f *freedLog) rblock(seq uint64) *raisedBlock {
	b := seq / histBlockLen
	if len(f.rblocks) == 0 {
		f.rblk0 = b
	}
	for b-f.rblk0 >= uint64(len(f.rblocks)) {
		f.rblocks = append(f.rblocks, emptyRaisedBlock)
	}
	return &f.rblocks[b-f.rblk0]
}

// rblockOf returns the summary of the raised block holding seq, nil when
// it is forgotten.
func (f *freedLog) rblockOf(seq uint64) *raisedBlock {
	b := seq / histBlockLen
	if b < f.rblk0 || b-f.rblk0 >= uint64(len(f.rblocks)) {
		return nil
	}
	return &f.rblocks[b-f.rblk0]
}

// setGone marks raised entry x gone or not, keeping its block's summary.
func (f *freedLog) setGone(x *raisedEntry, gone bool) {
	x.gone = gone
	blk := f.rblockOf(x.seq)
	if blk == nil {
		return
	}
	if gone {
		blk.stale = true
	} else {
		blk.include(x)
	}
}

// rblockEnd is blockEnd for the raised entries.
func (f *freedLog) rblockEnd(i int) int {
	seq := f.rais[i].seq
	next := (seq/histBlockLen + 1) * histBlockLen
	hi := min(i+int(next-seq), len(f.rais)) // as in blockEnd
	if f.rais[hi-1].seq < next {
		return hi
	}
	return searchEnd(i, hi, func(j int) bool { return f.rais[j].seq < next })
}

// rskippable reports whether changedSince may jump over the block of the
// raised entry at position i (entries up to end): every one is gone,
// raised usage outside [lo, hi), or cancels a removal after mark.
func (f *freedLog) rskippable(i, end int, mark uint64, lo, hi int64) bool {
	seq := f.rais[i].seq
	blk := f.rblockOf(seq)
	if blk == nil {
		return false
	}
	if blk.stale {
		*blk = emptyRaisedBlock
		first := seq - seq%histBlockLen
		for j := f.raisedIndex(first); j < end; j++ { // the whole block, wherever the scan began
			if x := &f.rais[j]; !x.gone {
				blk.include(x)
			}
		}
	}
	return mark < blk.minReadds || blk.minS >= hi || blk.maxE <= lo
}
