package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// tokens are two users' bearer tokens, as keys of the api section.
const tokens = `tokens: [{token: alice-token-0123456789, user: alice}, {token: bob-token-0123456789ab, user: bob}]`

// TestDaemonEndToEnd drives borad (fake driver, two hosts, 120x clock)
// through bora only: best-effort leases are suspended for a local advance
// reservation and resumed after it; a lease too large is rejected; a
// deadline lease is accepted; a cancelled lease is cancelled.
func TestDaemonEndToEnd(t *testing.T) {
	c := newCluster(t, 2, 120, "")
	c.start()
	be1 := c.create("--name", "be1", "--vms", "1", "--duration", "20m", "--origin", "external", "--class", "suspendable")
	be2 := c.create("--name", "be2", "--vms", "1", "--duration", "20m", "--origin", "external", "--class", "suspendable")
	ar := c.create("--name", "ar", "--vms", "2", "--duration", "10m", "--start", "+5m")
	if ar.State != "scheduled" || ar.Kind != "advance-reservation" {
		t.Fatalf("advance reservation: %+v", ar)
	}
	out, _, code := c.bora("lease", "create", "--vms", "5", "--duration", "1h", "--start", "now", "-o", "json")
	if code == 0 || !strings.Contains(out, "rejected") {
		t.Fatalf("a lease larger than the cluster: exit %d, %s", code, out)
	}
	dl := c.create("--name", "dl", "--vms", "1", "--duration", "10m", "--deadline", "+10h", "--origin", "external")
	if dl.Kind != "deadline" || dl.State == "rejected" {
		t.Fatalf("deadline lease: %+v", dl)
	}
	x := c.create("--vms", "1", "--duration", "1h", "--origin", "external")
	c.must("lease", "cancel", fmt.Sprint(x.ID))
	if l := c.show(x.ID); l.State != "cancelled" {
		t.Fatalf("cancelled lease is %s", l.State)
	}
	c.waitState(ar.ID, 30*time.Second, "running")
	for _, id := range []uint64{be1.ID, be2.ID} {
		l := c.waitState(id, 60*time.Second, "done")
		if p := path(l); !strings.Contains(p, "suspending,suspended") || !strings.HasSuffix(p, "resuming,running,done") || l.Preemptions != 1 {
			t.Fatalf("lease %d went %s with %d preemptions, want suspended for the reservation and resumed", id, p, l.Preemptions)
		}
	}
	c.waitState(ar.ID, 30*time.Second, "done")
	c.waitState(dl.ID, 60*time.Second, "done")
	if n := len(c.list()); n != 6 {
		t.Fatalf("lease list shows %d leases, want 6", n)
	}
	if out := c.must("host", "list"); !strings.Contains(out, "node1") || !strings.Contains(out, "node2") {
		t.Fatalf("host list:\n%s", out)
	}
	if out := c.must("schedule", "--from", "-1h", "--to", "+1h"); !strings.Contains(out, "node1") {
		t.Fatalf("schedule:\n%s", out)
	}
	c.stop(syscall.SIGTERM)
}

// TestDaemonCrashBurst submits 200 leases in a burst, kills borad with
// SIGKILL in the middle, and restarts it: every acknowledged lease is
// there, the restored slot table passes the invariant checker (borad
// refuses to start otherwise), and the schedule carries on.
func TestDaemonCrashBurst(t *testing.T) {
	c := newCluster(t, 4, 600, "")
	c.start()
	var mu sync.Mutex
	acked := map[uint64]bool{}
	var wg sync.WaitGroup
	jobs := make(chan int)
	killed := make(chan struct{})
	var once sync.Once
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				out, _, code := run(t, "--socket", c.socket, "lease", "create", "--vms", "1", "--duration", "5m",
					"--origin", "external", "-o", "json")
				if code != 0 {
					continue // not acknowledged (the daemon was killed)
				}
				var id uint64
				if _, err := fmt.Sscanf(out[strings.Index(out, `"id"`):], `"id": %d`, &id); err != nil {
					t.Errorf("no id in %s", out)
					continue
				}
				mu.Lock()
				acked[id] = true
				if len(acked) == 80 {
					once.Do(func() { _ = c.cmd.Process.Kill(); close(killed) })
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < 200; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatal("the burst ended before the kill")
	}
	_ = c.cmd.Wait()
	c.cmd = nil
	c.start()
	present := map[uint64]string{}
	for _, l := range c.list() {
		present[l.ID] = l.State
	}
	for id := range acked {
		if _, ok := present[id]; !ok {
			t.Errorf("lease %d was acknowledged before the crash and is gone", id)
		}
	}
	t.Logf("%d leases acknowledged before SIGKILL, %d present after restart", len(acked), len(present))
	// The schedule carries on: some acknowledged lease finishes.
	deadline := time.Now().Add(60 * time.Second)
	for {
		done := 0
		for _, l := range c.list() {
			if l.State == "done" {
				done++
			}
			if l.State == "failed" {
				t.Fatalf("lease %d failed after the restart: %s", l.ID, l.Reason)
			}
		}
		if done > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no lease finished after the restart")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestDaemonRestartMidSuspension stops borad cleanly while a lease is
// being suspended; after the restart the suspension completes, the lease
// resumes after the reservation and finishes.
func TestDaemonRestartMidSuspension(t *testing.T) {
	c := newCluster(t, 1, 120, "")
	c.start()
	be := c.create("--vms", "1", "--duration", "30m", "--origin", "external", "--class", "suspendable")
	ar := c.create("--vms", "1", "--duration", "5m", "--start", "+4m")
	if ar.State != "scheduled" {
		t.Fatalf("advance reservation: %+v", ar)
	}
	c.waitState(be.ID, 30*time.Second, "suspending")
	c.stop(syscall.SIGTERM)
	c.start()
	l := c.waitState(be.ID, 90*time.Second, "done")
	if p := path(l); !strings.Contains(p, "suspending,suspended") || !strings.HasSuffix(p, "resuming,running,done") {
		t.Fatalf("lease went %s", p)
	}
	if a := c.waitState(ar.ID, 30*time.Second, "done"); a.Hosts[0] != "node1" {
		t.Fatalf("reservation on %v", a.Hosts)
	}
}

// TestDaemonBadInput: bad requests get clear errors, the daemon keeps
// running, and nothing in the store changes.
func TestDaemonBadInput(t *testing.T) {
	c := newClusterAPI(t, 1, 1, tokens, "")
	c.start()
	l := c.create("--vms", "1", "--duration", "1h", "--token", "alice-token-0123456789")
	before := len(c.list())
	write := func(name, body string) string {
		p := filepath.Join(c.dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := write("big.json", `{"vms": 1, "duration": "1h", "name": "`+strings.Repeat("x", 10<<20)+`"}`)
	cases := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"malformed JSON", []string{"lease", "create", write("bad.json", `{"vms": 1,`)}, ""},
		{"unknown field", []string{"lease", "create", write("unknown.json", `{"vms": 1, "duration": "1h", "colour": "red"}`)}, "colour"},
		{"negative duration", []string{"lease", "create", "--vms", "1", "--duration", "-1h"}, "duration"},
		{"1ns duration", []string{"lease", "create", "--vms", "1", "--duration", "1ns"}, "duration: \"1ns\" is below the scheduler's resolution of 1s"},
		{"escape sequence in the name", []string{"lease", "create", "--vms", "1", "--duration", "1h", "--name", "a\x1b[31m\nfake-row"}, "name: character U+001B"},
		{"image out of the tree", []string{"lease", "create", "--vms", "1", "--duration", "1h", "--image", "../../../../etc/shadow"}, "image: \"../../../../etc/shadow\" names a parent directory"},
		{"10 MB body", []string{"lease", "create", big}, ""},
		{"unknown lease", []string{"lease", "show", "9999"}, ""},
		{"another user's lease", []string{"lease", "show", fmt.Sprint(l.ID), "--token", "bob-token-0123456789ab"}, ""},
		{"another user's cancel", []string{"lease", "cancel", fmt.Sprint(l.ID), "--token", "bob-token-0123456789ab"}, ""},
		{"suspend by a user", []string{"lease", "suspend", fmt.Sprint(l.ID), "--token", "bob-token-0123456789ab"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := c.bora(tc.args...)
			if code == 0 {
				t.Fatalf("exit 0")
			}
			if tc.want != "" && !strings.Contains(errOut, tc.want) {
				t.Fatalf("stderr %q does not name %q", errOut, tc.want)
			}
			if strings.TrimSpace(errOut) == "" {
				t.Fatal("no error message")
			}
		})
	}
	if after := len(c.list()); after != before {
		t.Fatalf("%d leases before the bad requests, %d after", before, after)
	}
	c.must("stats")
	// A config with a typo: borad refuses to start and names the key.
	bad := write("typo.yaml", "daemon:\n  stroe: /tmp/x.db\n")
	out, err := exec.Command(borad(t), "--config", bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "daemon.stroe") || !strings.Contains(string(out), ":2") {
		t.Fatalf("borad with a typo: %v: %s", err, out)
	}
	_, errOut, code := c.bora("config", "check", bad)
	if code != 2 || !strings.Contains(errOut, "daemon.stroe") {
		t.Fatalf("config check: exit %d: %s", code, errOut)
	}
}
