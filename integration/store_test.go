package integration

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDamagedStore is the sysadmin's story with the real borad and bora:
// borad takes snapshots (jobs.snapshot every second, keep 3); the store
// is damaged (truncated to half, 100 flipped bits); borad exits with
// status 1 and one message naming the file, the damage and the restore
// command, not with a panic or a signal (it used to: SIGSEGV, bbolt's
// "invalid freelist page" panic); bora store check says damaged (exit
// 7); bora store restore puts the newest snapshot back; borad starts
// with all 6 leases.
func TestDamagedStore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts borad: not in -short runs")
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "bora.db")
	c := writeCluster(t, dir, fmt.Sprintf(`daemon: {store: %s, clock: scaled, speed: 10, shutdown_timeout: 5s}
api: {socket: %s/bora.sock, socket_mode: "0600"}
jobs: {accounting: "", compaction: "", snapshot: "@every 1s", snapshot_keep: 3}
hosts: [{name: node1, cpu: 2, memory: 2048}]
`, store, dir))
	c.start()
	for range 6 {
		c.create("--vms", "1", "--duration", "10h", "--origin", "external", "--class", "suspendable")
	}
	created := time.Now()
	snaps := filepath.Join(dir, "snapshots")
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if newestSnapshot(t, snaps, created) != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no snapshot after the leases were created")
		}
	}
	c.stop(syscall.SIGTERM)
	if n, _ := filepath.Glob(filepath.Join(snaps, "bora-*.db")); len(n) > 3 {
		t.Errorf("%d snapshots, want at most 3 (jobs.snapshot_keep)", len(n))
	}
	sound, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	damages := map[string][]byte{"truncated to half": sound[:len(sound)/2], "100 flipped bits": flipBits(sound, 100)}
	for name, damaged := range damages {
		if err := os.WriteFile(store, damaged, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(borad(t), "--config", c.config).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("%s: borad exited with %v, want status 1:\n%s", name, err, out)
		}
		msg := string(out)
		for _, want := range []string{"borad: opening the state store: store: " + store + ": ", "bora store restore " + snaps} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: borad's message lacks %q:\n%s", name, want, msg)
			}
		}
		if strings.Contains(msg, "panic") || strings.Contains(msg, "goroutine ") {
			t.Errorf("%s: borad panicked:\n%s", name, msg)
		}
		if _, stderr, code := run(t, "store", "check", store); code != 7 || !strings.Contains(stderr, "to recover") {
			t.Errorf("%s: bora store check: exit %d, want 7 saying how to recover: %s", name, code, stderr)
		}
	}
	snap := newestSnapshot(t, snaps, created)
	if out, stderr, code := run(t, "store", "restore", snap, "--store", store); code != 0 {
		t.Fatalf("bora store restore: exit %d: %s%s", code, out, stderr)
	}
	c.start()
	if ls := c.list(); len(ls) != 6 {
		t.Errorf("%d leases after the restore, want 6", len(ls))
	}
}

// newestSnapshot is the newest snapshot in dir taken after t, "" if none.
func newestSnapshot(t *testing.T, dir string, after time.Time) string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "bora-*.db"))
	if len(names) == 0 {
		return ""
	}
	newest := names[len(names)-1] // names sort by time
	stamp := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(newest), "bora-"), ".db")
	at, err := time.Parse("20060102T150405.000Z", stamp)
	if err != nil {
		t.Fatalf("snapshot %s: %v", newest, err)
	}
	if !at.After(after) {
		return ""
	}
	return newest
}

// flipBits is data with n bits flipped (a fixed seed).
func flipBits(data []byte, n int) []byte {
	out := append([]byte(nil), data...)
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	for range n {
		i := rng.IntN(len(out) * 8)
		out[i/8] ^= 1 << (i % 8)
	}
	return out
}
