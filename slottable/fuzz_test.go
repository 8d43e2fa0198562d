package slottable

import (
	"testing"
	"time"
)

// bytesIn reads a fuzz input a byte at a time, zeros once exhausted.
type bytesIn struct {
	b []byte
	i int
}

func (r *bytesIn) next() int {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return int(r.b[r.i-1])
}

func (r *bytesIn) done() bool { return r.i >= len(r.b) }

// FuzzTable interprets its input as a table shape and then a sequence of
// add / remove / set-end / query / renumber / toggle-checking operations,
// checking every answer against the brute-force model (see harness). A bit
// of the shape turns on the history of freed capacity, and with it the
// open hosts' usage added up (cluster.go), which EarliestFit then reads.
func FuzzTable(f *testing.F) {
	f.Add([]byte{0x00, 0, 0, 0, 10, 2, 1, 4, 0, 5, 0, 2, 3, 1, 1, 2, 0, 20, 4})
	f.Add([]byte{0x13, 0, 1, 3, 9, 4, 4, 1, 0, 2, 8, 4, 4, 1, 5, 1, 1, 3, 3, 4, 0, 0, 25, 1, 0, 0, 3, 10, 0, 0})
	f.Add([]byte{0x1b, 1, 2, 1, 5, 4, 1, 1, 3, 3, 2, 4, 0, 5, 2, 2, 1, 255, 3, 4, 7, 8, 2, 1, 1, 2, 1, 6, 40, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &bytesIn{b: data}
		cfg := in.next()
		n := 1 + cfg%4
		dims := 2 + (cfg>>2)%2
		unit := []time.Duration{time.Second, time.Nanosecond}[(cfg>>3)%2]
		var caps []Resources
		for i := range n {
			c := Resources{int64(400 * (1 + i%2)), int64(2048 * (1 + i/2))}
			caps = append(caps, c[:2:2])
			if dims == 3 {
				caps[i] = append(caps[i], 30)
			}
		}
		extra := []string{"disk"}[:dims-2]
		h := newHarness(t, extra, caps)
		h.tab.SetChecking((cfg>>4)%2 == 1)
		h.tab.TrackFreed((cfg>>5)%2 == 1) // with the open hosts' usage added up (cluster.go)
		tick := func(v int) time.Time { return base.Add(time.Duration(v) * unit) }
		vec := func() Resources {
			v := Resources{int64(100 * (in.next() % 5)), int64(512 * (in.next() % 5))}
			if dims == 3 {
				v = append(v, int64(10*(in.next()%3)))
			}
			return v
		}
		for ops := 0; ops < 300 && !in.done(); ops++ {
			switch in.next() % 7 {
			case 0, 1:
				hst, s, l := in.next()%n, in.next()%64, 1+in.next()%24
				h.add(Reservation{Host: HostID(hst), Lease: uint64(in.next() % 4),
					Start: tick(s), End: tick(s + l), Res: vec()})
			case 2:
				h.remove(in.next())
			case 3:
				h.setEnd(in.next(), time.Duration(in.next()%28)*unit)
			case 4:
				p := probe{host: HostID(in.next() % n)}
				f := in.next()%72 - 4
				p.from, p.to = tick(f), tick(f+in.next()%28)
				p.per = vec()
				p.lease, p.n = in.next()%5-1, in.next()%10
				p.dur = time.Duration(in.next()%32) * unit
				if u := in.next(); u%3 == 0 {
					p.until = tick(f + u%40)
				}
				p.mask = uint(in.next() % (1 << n))
				h.query(p)
			case 5:
				h.renumber(in.next(), 1+in.next()%6)
			default:
				h.tab.SetChecking(!h.tab.Checking())
			}
		}
		h.verify()
	})
}
