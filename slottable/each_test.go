package slottable

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestEachOverlappingIsOverlapping: EachOverlapping visits exactly the
// reservations Overlapping returns, in the same order, over random tables
// and intervals (including empty and inverted ones), and so does
// EachOverlappingOn over the hosts in turn.
func TestEachOverlappingIsOverlapping(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		tab := New()
		hosts := 1 + r.IntN(6)
		for i := range hosts {
			if _, err := tab.AddHost(string(rune('a'+i)), Resources{800, 8192}); err != nil {
				t.Fatal(err)
			}
		}
		for range 10 + r.IntN(60) {
			if _, err := tab.Add(benchReservation(r, hosts, 24*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		for range 30 {
			from := base.Add(time.Duration(r.Int64N(int64(30 * time.Hour))))
			to := from.Add(time.Duration(r.Int64N(int64(10*time.Hour))) - time.Hour)
			want := tab.Overlapping(from, to)
			var got []Reservation
			tab.EachOverlapping(from, to, func(x Reservation) { got = append(got, x) })
			if len(want) == 0 && len(got) == 0 {
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, [%v, %v): EachOverlapping gave %d reservations, Overlapping %d", seed, from, to, len(got), len(want))
			}
			// Host by host, EachOverlappingOn visits the same, in the
			// same order; an unknown host has none.
			var on []Reservation
			for h := HostID(-1); h <= HostID(hosts); h++ {
				tab.EachOverlappingOn(h, from, to, func(x Reservation) {
					if x.Host != h {
						t.Fatalf("seed %d: EachOverlappingOn(%d) visited a reservation of host %d", seed, h, x.Host)
					}
					on = append(on, x)
				})
			}
			if !reflect.DeepEqual(on, want) {
				t.Fatalf("seed %d, [%v, %v): EachOverlappingOn host by host gave %d reservations, Overlapping %d", seed, from, to, len(on), len(want))
			}
		}
	}
}
