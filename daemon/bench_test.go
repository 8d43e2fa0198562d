package daemon

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

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
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	d, err := New(context.Background(), Options{Config: c, Log: lg})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := NewAPIServer(d, c, lg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 2)
	go func() { done <- d.Run(ctx) }()
	go func() { done <- srv.Serve(ctx) }()
	defer func() {
		cancel()
		<-done
		<-done
	}()
	select {
	case <-srv.Ready():
	case <-time.After(5 * time.Second):
		b.Fatal("API not ready")
	}
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
