package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonKillDrill: borad (fake driver, four hosts of one core and
// 1024 MB, clock 300 times the wall clock) runs a busy schedule driven
// through bora: best-effort leases, advance reservations that preempt
// them, and admin suspensions, resumptions and migrations. Ten times, at
// a random moment (seeded: the seed is printed, BORA_DRILL_SEED replays
// it), borad is killed with SIGKILL and started again. Before each kill
// borad has counted no capacity breach; after it, the fake driver's
// state file runs no VM on two hosts and no host over capacity; after
// each restart every acknowledged lease is there, bora host list shows
// no host over capacity, and the log holds no panic.
func TestDaemonKillDrill(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("BORA_DRILL_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("BORA_DRILL_SEED: %v", err)
		}
	}
	t.Logf("seed %d (BORA_DRILL_SEED=%d replays it)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	c := newCluster(t, 4, 300, "")
	c.start()
	acked := map[uint64]bool{}
	began := time.Now()
	late := 0.0 // operations found late, over the daemon's lives
	for round := 1; round <= 10; round++ {
		if time.Since(began) > 150*time.Second {
			t.Fatalf("round %d: the drill took over 150 s", round)
		}
		c.churn(rng, acked)
		time.Sleep(time.Duration(rng.Int63n(int64(1500 * time.Millisecond))))
		if n := c.metric("bora_capacity_breaches_total"); n != 0 {
			t.Fatalf("round %d: borad counted %v capacity breaches:\n%s", round, n, strings.Join(c.logLines("over capacity"), "\n"))
		}
		late += c.metric("bora_operations_late_total")
		_ = c.cmd.Process.Signal(syscall.SIGKILL)
		_ = c.cmd.Wait()
		c.cmd = nil
		c.log.Close()
		c.checkFakeState(round)
		c.start()
		c.checkRestart(round, acked)
	}
	t.Logf("10 kills and restarts in %s, %d leases acknowledged, %v operations late", time.Since(began).Round(time.Millisecond),
		len(acked), late)
}

// churn submits a few leases and does an admin operation or two.
func (c *cluster) churn(rng *rand.Rand, acked map[uint64]bool) {
	c.t.Helper()
	for i := 0; i < 3; i++ {
		args := []string{"--vms", "1", "--duration", fmt.Sprintf("%dm", 5+rng.Intn(20)), "--origin", "external",
			"--class", "suspendable"}
		if rng.Intn(3) == 0 {
			args = []string{"--vms", fmt.Sprint(1 + rng.Intn(2)), "--duration", "5m", "--start", fmt.Sprintf("+%dm", 4+rng.Intn(6))}
		}
		out, _, code := c.bora(append([]string{"lease", "create", "-o", "json"}, args...)...)
		var l leaseJSON
		if code == 0 && json.Unmarshal([]byte(out), &l) == nil && l.ID > 0 {
			acked[l.ID] = true
		} else if code == 0 {
			c.t.Fatalf("lease create %v: exit 0 without a lease: %s", args, out)
		}
	}
	var running, held []uint64
	for _, l := range c.list() {
		switch {
		case l.State == "running":
			running = append(running, l.ID)
		case l.State == "suspended" && l.Reason == "suspended-by-admin":
			held = append(held, l.ID)
		}
	}
	// The lease may have changed meanwhile: a refusal is fine, a crash is not.
	if len(running) > 0 {
		op := []string{"suspend", "migrate"}[rng.Intn(2)]
		c.bora("lease", op, fmt.Sprint(running[rng.Intn(len(running))]))
	}
	if len(held) > 0 {
		c.bora("lease", "resume", fmt.Sprint(held[rng.Intn(len(held))]))
	}
}

// checkFakeState reads the fake driver's state file (borad is down):
// every VM is on one host, and the running and paused ones fit their
// hosts (1 core, 1024 MB).
func (c *cluster) checkFakeState(round int) {
	c.t.Helper()
	data, err := os.ReadFile(filepath.Join(c.dir, "bora.db.fake.json"))
	if err != nil {
		c.t.Fatalf("round %d: %v", round, err)
	}
	var doc struct {
		VMs []struct {
			Name, Host, State string
			CPU, Memory       int64
		} `json:"vms"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		c.t.Fatalf("round %d: fake state file: %v", round, err)
	}
	where := map[string]string{}
	cpu, mem := map[string]int64{}, map[string]int64{}
	for _, v := range doc.VMs {
		if h, ok := where[v.Name]; ok {
			c.t.Fatalf("round %d: VM %s is on %s and on %s", round, v.Name, h, v.Host)
		}
		where[v.Name] = v.Host
		if v.State == "running" || v.State == "paused" {
			cpu[v.Host] += v.CPU
			mem[v.Host] += v.Memory
		}
	}
	for h := range cpu {
		if cpu[h] > 100 || mem[h] > 1024 {
			c.t.Fatalf("round %d: the fake driver runs %d/100 CPU and %d/1024 MB on %s", round, cpu[h], mem[h], h)
		}
	}
}

// checkRestart checks borad just started again: every acknowledged lease
// is there, no host is over capacity in the plan, no panic in the log.
func (c *cluster) checkRestart(round int, acked map[uint64]bool) {
	c.t.Helper()
	present := map[uint64]bool{}
	for _, l := range c.list() {
		present[l.ID] = true
	}
	for id := range acked {
		if !present[id] {
			c.t.Fatalf("round %d: acknowledged lease %d is gone after the restart", round, id)
		}
	}
	var hosts []struct {
		Name       string  `json:"name"`
		CPU        float64 `json:"cpu"`
		Memory     int64   `json:"memory"`
		UsedCPU    float64 `json:"used_cpu"`
		UsedMemory int64   `json:"used_memory"`
	}
	if err := json.Unmarshal([]byte(c.must("host", "list", "-o", "json")), &hosts); err != nil {
		c.t.Fatal(err)
	}
	for _, h := range hosts {
		if h.UsedCPU > h.CPU || h.UsedMemory > h.Memory {
			c.t.Fatalf("round %d: host %s uses %v/%v cores, %d/%d MB", round, h.Name, h.UsedCPU, h.CPU, h.UsedMemory, h.Memory)
		}
	}
	if lines := append(c.logLines("panic"), c.logLines("goroutine ")...); len(lines) > 0 {
		c.t.Fatalf("round %d: borad's log:\n%s", round, strings.Join(lines, "\n"))
	}
}

// logLines returns the lines of borad's log that hold s.
func (c *cluster) logLines(s string) []string {
	c.t.Helper()
	f, err := os.Open(filepath.Join(c.dir, "borad.log"))
	if err != nil {
		c.t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), s) {
			out = append(out, sc.Text())
		}
	}
	return out
}

// metric reads a counter or gauge (without labels) from borad's /metrics
// on its socket.
func (c *cluster) metric(name string) float64 {
	c.t.Helper()
	cl := http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", c.socket)
		}}}
	resp, err := cl.Get("http://borad/metrics")
	if err != nil {
		c.t.Fatalf("metrics: %v", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				c.t.Fatalf("metrics: %s: %v", sc.Text(), err)
			}
			return f
		}
	}
	c.t.Fatalf("metrics: no %s (status %s)", name, resp.Status)
	return 0
}
