package slottable

// seqIndex returns the position of the first element of s whose sequence
// number (seq of it) is at least want, len(s) if none: what a binary
// search gives, for s in increasing order of sequence number. The
// histories it searches (freed and raised entries) hold tens of thousands
// of entries of about a hundred bytes, numbered from one counter with
// few gaps, so it first guesses the position from the numbers' spread,
// then gallops from the guess to a bracket and searches that: a handful
// of cache misses where a binary search over the whole takes fifteen.
func seqIndex[E any](s []E, want uint64, seq func(*E) uint64) int {
	n := len(s)
	if n == 0 || want <= seq(&s[0]) {
		return 0
	}
	first, last := seq(&s[0]), seq(&s[n-1])
	if want > last {
		return n
	}
	// seq(s[0]) < want <= seq(s[n-1]): the answer is in [1, n-1].
	g := 1 + int(float64(want-first)/float64(last-first+1)*float64(n-1))
	g = min(max(g, 1), n-1)
	// Bracket it: seq(s[lo]) < want <= seq(s[hi]).
	var lo, hi int
	if seq(&s[g]) >= want {
		hi, lo = g, g-1
		for step := 1; lo > 0 && seq(&s[lo]) >= want; step *= 2 {
			hi = lo
			lo = max(lo-step, 0)
		}
	} else {
		lo, hi = g, g+1
		for step := 1; hi < n-1 && seq(&s[hi]) < want; step *= 2 {
			lo = hi
			hi = min(hi+step, n-1)
		}
	}
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if seq(&s[m]) >= want {
			hi = m
		} else {
			lo = m
		}
	}
	return hi
}

// freedSeq and raisedSeq are the entries' sequence numbers, for seqIndex.
func freedSeq(e *freedEntry) uint64   { return e.seq }
func raisedSeq(e *raisedEntry) uint64 { return e.seq }
