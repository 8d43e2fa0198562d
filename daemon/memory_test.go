package daemon

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/store"
)

// churnHosts is the cluster the memory measurements run on.
const churnHosts = 64

// churn submits n one-minute, one-VM best-effort leases to the daemon in
// waves of a few per host, each wave once the one before has finished, so
// that all n end done. It returns the daemon, still running.
func churn(tb testing.TB, c config.Config, n int) *Daemon {
	tb.Helper()
	d := startQuiet(tb, c)
	ctx := context.Background()
	const wave = 4 * churnHosts
	for done := 0; done < n; {
		k := min(wave, n-done)
		var last uint64
		for i := 0; i < k; i++ {
			l, err := d.CreateLease(ctx, alice, api.LeaseRequest{Name: fmt.Sprint("m", done+i), VMs: 1, Duration: "1m"})
			if err != nil {
				tb.Fatal(err)
			}
			last = l.ID
		}
		waitDone(tb, d, last)
		done += k
	}
	// Every lease of a wave ends by the time its last one does, but the
	// earlier ones' shutdowns may still be under way: wait for all.
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := d.Stats(ctx, admin)
		if err != nil {
			tb.Fatal(err)
		}
		if st.Leases["done"] == n {
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("only %d of %d leases done: %v", st.Leases["done"], n, st.Leases)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return d
}

// waitDone polls lease id until it is over, without testing.T's helpers
// (a benchmark calls it too).
func waitDone(tb testing.TB, d *Daemon, id uint64) {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		l, err := d.GetLease(context.Background(), admin, id)
		if err != nil {
			tb.Fatal(err)
		}
		if l.State == "done" {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("lease %d is %s after a minute", id, l.State)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// quiet is a daemon started for a measurement: no log, its loop running.
type quiet struct {
	*Daemon
	cancel context.CancelFunc
	done   chan error
}

func startQuiet(tb testing.TB, c config.Config) *Daemon {
	tb.Helper()
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	d, err := New(context.Background(), Options{Config: c, Log: lg})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := &quiet{Daemon: d, cancel: cancel, done: make(chan error, 1)}
	go func() { q.done <- d.Run(ctx) }()
	loops[d] = q
	return d
}

// loops maps the daemons startQuiet started to their loops.
var loops = map[*Daemon]*quiet{}

func stopQuiet(tb testing.TB, d *Daemon) {
	tb.Helper()
	q := loops[d]
	delete(loops, d)
	q.cancel()
	if err := <-q.done; err != nil {
		tb.Fatal(err)
	}
}

// heapInUse is the heap in use after a GC.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// storePerLease is the store file's size over n leases.
func storePerLease(tb testing.TB, c config.Config, n int) float64 {
	tb.Helper()
	fi, err := os.Stat(c.Daemon.Store)
	if err != nil {
		tb.Fatal(err)
	}
	return float64(fi.Size()) / float64(n)
}

// churnConfig is the cluster the memory measurements run on.
func churnConfig(dir string) config.Config {
	c := testConfig(dir, churnHosts)
	c.Scheduler.CheckInvariants = false
	return c
}

// BenchmarkFinishedLeases runs 10,000 leases to their end through the
// in-process daemon (fake driver, simulated clock), then restarts over
// the same store, and reports the store's bytes per finished lease and
// the heap in use after a GC, before and after the restart.
//
//	go test ./daemon -run ^$ -bench FinishedLeases -benchtime 1x -memprofile /tmp/mem.out
func BenchmarkFinishedLeases(b *testing.B) {
	for i := 0; i < b.N; i++ {
		const n = 10000
		c := churnConfig(b.TempDir())
		d := churn(b, c, n)
		if _, err := d.Stats(context.Background(), admin); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(heapInUse())/(1<<20), "heap-MB")
		stopQuiet(b, d)
		b.ReportMetric(storePerLease(b, c, n), "store-B/lease")
		d = startQuiet(b, c)
		if _, err := d.Stats(context.Background(), admin); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(heapInUse())/(1<<20), "restart-heap-MB")
		stopQuiet(b, d)
		b.ReportMetric(storePerLease(b, c, n), "restart-store-B/lease")
	}
}

func TestChurnQuick(t *testing.T) {
	n := 1000
	if v := os.Getenv("CHURN_N"); v != "" {
		fmt.Sscan(v, &n)
	}
	if os.Getenv("CHURN_HEAP") != "" {
		runtime.MemProfileRate = 1024
	}
	c := churnConfig(t.TempDir())
	t0 := time.Now()
	d := churn(t, c, n)
	t.Logf("churn %v heap %.1f MB", time.Since(t0), float64(heapInUse())/(1<<20))
	if p := os.Getenv("CHURN_HEAP"); p != "" {
		f, _ := os.Create(p)
		pprof.WriteHeapProfile(f)
		f.Close()
	}
	stopQuiet(t, d)
	t.Logf("store %.0f B/lease", storePerLease(t, c, n))
	d = startQuiet(t, c)
	d.Stats(context.Background(), admin)
	t.Logf("restart heap %.1f MB", float64(heapInUse())/(1<<20))
	stopQuiet(t, d)
}

func TestDumpRecord(t *testing.T) {
	c := churnConfig(t.TempDir())
	d := churn(t, c, 300)
	stopQuiet(t, d)
	st, _ := openStoreForTest(c)
	defer st.Close()
	v, _ := st.Lease(5)
	t.Logf("%d bytes: %s", len(v), v)
	s, _ := st.Load()
	t.Logf("meta: %d", len(s.Meta["scheduler"]))
	for k, v := range s.Meta { t.Logf("meta %s %d", k, len(v)) }
}
func openStoreForTest(c config.Config) (*store.Store, error) { return store.Open(c.Daemon.Store, store.Options{}) }
