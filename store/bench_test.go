package store

import (
	"fmt"
	"testing"
)

// benchSizes are how many leases the store already holds, so that growth
// of the commit cost with the store's size is visible.
var benchSizes = []int{0, 10_000}

// prefill commits n leases with ids above 1<<32, out of the way.
func prefill(b *testing.B, s *Store, n int) {
	b.Helper()
	for lo := 0; lo < n; lo += 1000 {
		batch := Batch{Leases: map[uint64][]byte{}}
		for i := lo; i < lo+1000 && i < n; i++ {
			id := uint64(1<<32 + i)
			batch.Leases[id] = leaseValue(id)
		}
		mustCommit(b, s, batch)
	}
}

// BenchmarkCommit commits one lease per Batch: the daemon's usual
// "committed before enacted" step. Each op is one fsync.
func BenchmarkCommit(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("stored=%d", size), func(b *testing.B) {
			s := openStore(b)
			prefill(b, s, size)
			var id uint64
			for b.Loop() {
				id++
				mustCommit(b, s, Batch{Leases: map[uint64][]byte{id: leaseValue(id)},
					Meta: map[string][]byte{"next_lease_id": []byte("x")}})
			}
		})
	}
}

// BenchmarkCommitBatch100 commits 100 leases per Batch: one fsync for
// a whole plan.
func BenchmarkCommitBatch100(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("stored=%d", size), func(b *testing.B) {
			s := openStore(b)
			prefill(b, s, size)
			var id uint64
			for b.Loop() {
				batch := Batch{Leases: make(map[uint64][]byte, 100)}
				for range 100 {
					id++
					batch.Leases[id] = leaseValue(id)
				}
				mustCommit(b, s, batch)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(id), "ns/lease")
		})
	}
}

// BenchmarkLoad reads the whole store, as the daemon does at start.
func BenchmarkLoad(b *testing.B) {
	for _, size := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("stored=%d", size), func(b *testing.B) {
			s := openStore(b)
			prefill(b, s, size)
			for b.Loop() {
				if _, err := s.Load(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
