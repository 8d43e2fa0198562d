package daemon

import (
	"context"
	"sort"
	"sync"
	"time"
)

// workers owns the daemon's background goroutines other than the
// executor's (which has its own stop, exec.go): the driver's event pump,
// the intake and every power switch. Each runs under the workers' context,
// which shutdown cancels; shutdown then waits for them (stop) and names
// those still running when its time is up.
type workers struct {
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex
	seq     int
	running map[int]string // by number: what each goroutine does
	stopped bool
}

func newWorkers() *workers {
	ctx, cancel := context.WithCancel(context.Background())
	return &workers{ctx: ctx, cancel: cancel, running: map[int]string{}}
}

// Go runs fn in a goroutine under the workers' context; name says what it
// does (in the shutdown log).
func (w *workers) Go(name string, fn func(ctx context.Context)) {
	w.mu.Lock()
	w.seq++
	n := w.seq
	w.running[n] = name
	w.wg.Add(1)
	w.mu.Unlock()
	go func() {
		defer w.wg.Done()
		defer func() {
			w.mu.Lock()
			delete(w.running, n)
			w.mu.Unlock()
		}()
		fn(w.ctx)
	}()
}

// stop cancels the workers' context and waits up to timeout for the
// goroutines to end. It returns what those still running do, sorted;
// nothing when called again.
func (w *workers) stop(timeout time.Duration) []string {
	w.mu.Lock()
	again := w.stopped
	w.stopped = true
	w.mu.Unlock()
	w.cancel()
	if again {
		return nil
	}
	done := make(chan struct{})
	go func() { w.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(timeout):
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.running))
	for _, name := range w.running {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
