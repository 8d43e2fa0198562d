package slottable

import "time"

// UsageIntegral returns the integral of host h's usage of dimension dim
// over [from, to), in units times seconds (e.g. CPU hundredths x s), and
// the latest end of h's reservations (zero when it has none). It returns
// 0 and the zero time for an unknown host or dimension, or an empty
// interval. Cost: O(log n + k) for the k change points in the interval,
// without allocating per reservation (the energy controller asks it of
// every switched-on host on every decision).
func (t *Table) UsageIntegral(h HostID, dim int, from, to time.Time) (float64, time.Time) {
	if !t.validHost(h) || dim < 0 || dim >= t.Dims() {
		return 0, time.Time{}
	}
	last := t.LatestEnd(h)
	f, e := toNS(from), toNS(to)
	if e <= f {
		return 0, last
	}
	var w walker
	w.init(t, h, f, e, nil)
	var sum float64
	at, u := f, w.usage[dim]
	for w.next() {
		sum += float64(u) * float64(w.at-at) / 1e9
		at, u = w.at, w.usage[dim]
	}
	sum += float64(u) * float64(e-at) / 1e9
	return sum, last
}
