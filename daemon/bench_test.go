package daemon

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/bora-sched/bora/api"
)

// BenchmarkSubmitThroughAPI measures lease submissions through the HTTP
// API on the unix socket, each acknowledged only after it is committed to
// the store (fsync): the real path of `bora lease create`. Clients submit
// in parallel (-cpu sets how many), as a gateway or many users do; the
// loop commits the submissions waiting together in one transaction.
//
//	go test ./daemon -run ^$ -bench SubmitThroughAPI -cpu 1,8,32
func BenchmarkSubmitThroughAPI(b *testing.B) {
	dir := b.TempDir()
	c := testConfig(dir, 64)
	c.Daemon.Clock = "real"
	c.Scheduler.CheckInvariants = false
	runWithAPI(b, c)
	cl, err := api.NewClient(api.ClientOptions{Socket: filepath.Join(dir, "bora.sock")})
	if err != nil {
		b.Fatal(err)
	}
	req := api.LeaseRequest{VMs: 1, Duration: "1h"}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := cl.CreateLease(context.Background(), req); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "leases/s")
}
