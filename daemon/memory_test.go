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
)

// churnHosts is the cluster the memory measurements run on.
const churnHosts = 64

// churn submits n one-minute, one-VM best-effort leases to the daemon in
// waves of a few per host, each wave once the one before has finished, so
// that all n end done. It returns the daemon, still running.
func churn(tb testing.TB, c config.Config, n int) *quiet {
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
		waitDone(tb, d.Daemon, last)
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

func startQuiet(tb testing.TB, c config.Config) *quiet {
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
	return q
}

// stop stops the loop (which closes the store).
func (q *quiet) stop(tb testing.TB) {
	tb.Helper()
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
// With BORA_HEAP_PROFILE=prefix it writes heap profiles at both points
// (prefix.churn, prefix.restart) for `go tool pprof`.
//
//	go test ./daemon -run ^$ -bench FinishedLeases -benchtime 1x
func BenchmarkFinishedLeases(b *testing.B) {
	for i := 0; i < b.N; i++ {
		const n = 10000
		c := churnConfig(b.TempDir())
		d := churn(b, c, n)
		if _, err := d.Stats(context.Background(), admin); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(heapInUse())/(1<<20), "heap-MB")
		heapProfile(b, "churn")
		d.stop(b)
		b.ReportMetric(storePerLease(b, c, n), "store-B/lease")
		d = startQuiet(b, c)
		if _, err := d.Stats(context.Background(), admin); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(heapInUse())/(1<<20), "restart-heap-MB")
		heapProfile(b, "restart")
		d.stop(b)
		b.ReportMetric(storePerLease(b, c, n), "restart-store-B/lease")
	}
}

// heapProfile writes a heap profile to $BORA_HEAP_PROFILE.name, if set.
func heapProfile(tb testing.TB, name string) {
	prefix := os.Getenv("BORA_HEAP_PROFILE")
	if prefix == "" {
		return
	}
	f, err := os.Create(prefix + "." + name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		tb.Fatal(err)
	}
}

// TestStorePerFinishedLease: 1,000 one-minute leases run to their end;
// the store then holds under 1.5 KB per finished lease, and still does
// after a restart. (A finished lease's record is about 430 bytes; before
// compact records and compaction the file was 4 MiB, 4.2 KB a lease.)
func TestStorePerFinishedLease(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 1,000 leases")
	}
	const n = 1000
	c := churnConfig(t.TempDir())
	d := churn(t, c, n)
	d.stop(t)
	if b := storePerLease(t, c, n); b > 1536 {
		t.Errorf("store: %.0f bytes per finished lease, want at most 1536", b)
	}
	d = startQuiet(t, c)
	st, err := d.Stats(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	if st.Leases["done"] != n {
		t.Errorf("after a restart, %d leases done, want %d", st.Leases["done"], n)
	}
	d.stop(t)
	if b := storePerLease(t, c, n); b > 1536 {
		t.Errorf("store after a restart: %.0f bytes per finished lease, want at most 1536", b)
	}
}
