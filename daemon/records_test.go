package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	bolt "go.etcd.io/bbolt"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/store"
)

// liveStore runs a daemon (real clock, so that nothing ends) on 3 hosts
// of one core, gives it 12 leases of 10 hours (3 run, 9 wait), stops it,
// and returns its config and the ids of the leases.
func liveStore(t *testing.T, edit func(*config.Config)) (config.Config, []uint64) {
	t.Helper()
	c := testConfig(t.TempDir(), 3)
	c.Daemon.Clock = "real"
	if edit != nil {
		edit(&c)
	}
	d := start(t, c)
	var ids []uint64
	for range 12 {
		l, err := d.CreateLease(context.Background(), alice, api.LeaseRequest{VMs: 1, Duration: "10h"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	d.stop(t)
	return c, ids
}

// newDaemon is New with the logs discarded.
func newDaemon(c config.Config) (*Daemon, error) {
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	return New(context.Background(), Options{Config: c, Log: lg})
}

// editBolt changes the store file behind the daemon's back.
func editBolt(t *testing.T, path string, fn func(*bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

// leaseKey is the store's key of lease id (8 bytes, big-endian).
func leaseKey(id uint64) []byte {
	k := make([]byte, 8)
	for i := range 8 {
		k[7-i] = byte(id >> (8 * i))
	}
	return k
}

// TestNewRefusesDamagedStore: borad's start (New) refuses each damaged
// store with one error that names the file, the problem and how to
// recover, changes nothing in the file, and does not panic. Before, half
// a store crashed the process, bits and a zeroed page made bbolt assert,
// 0 bytes started an empty store (its leases gone), a lease edited to
// 900% CPU was loaded as it was, and a damaged fake-driver state file
// panicked in Close, hiding its error.
func TestNewRefusesDamagedStore(t *testing.T) {
	rewrite := func(fn func(t *testing.T, b []byte) []byte) func(*testing.T, string, []uint64) {
		return func(t *testing.T, path string, _ []uint64) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, fn(t, b), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name   string
		damage func(t *testing.T, path string, ids []uint64)
		want   error
		says   string
	}{
		{"truncated to half", rewrite(func(_ *testing.T, b []byte) []byte { return b[:len(b)/2] }), store.ErrDamaged, "truncated"},
		{"0 bytes", rewrite(func(_ *testing.T, _ []byte) []byte { return nil }), store.ErrDamaged, "empty (0 bytes)"},
		{"100 flipped bits", rewrite(func(_ *testing.T, b []byte) []byte {
			rng := rand.New(rand.NewPCG(100, 1))
			for range 100 {
				i := rng.IntN(len(b) * 8)
				b[i/8] ^= 1 << (i % 8)
			}
			return b
		}), nil, ""},
		{"zeroed page", func(t *testing.T, path string, _ []uint64) {
			var root uint64
			editBolt(t, path, func(tx *bolt.Tx) error { root = uint64(tx.Bucket([]byte("leases")).Root()); return nil })
			if root == 0 {
				t.Fatal("the leases bucket is inline: no page of its own to zero")
			}
			rewrite(func(_ *testing.T, b []byte) []byte { clear(b[root*4096 : (root+1)*4096]); return b })(t, path, nil)
		}, store.ErrDamaged, "zeroed"},
		{"garbage", rewrite(func(_ *testing.T, b []byte) []byte {
			rng := rand.New(rand.NewPCG(7, 7))
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			return b
		}), store.ErrNotStore, "no valid bbolt header"},
		{"lease at 900% CPU", func(t *testing.T, path string, ids []uint64) {
			editBolt(t, path, func(tx *bolt.Tx) error {
				b := tx.Bucket([]byte("leases"))
				var rec map[string]any
				if err := json.Unmarshal(b.Get(leaseKey(ids[5])), &rec); err != nil {
					return err
				}
				rec["Req"].(map[string]any)["CPU"] = 900 // hosts have one core (100)
				data, _ := json.Marshal(rec)
				return b.Put(leaseKey(ids[5]), data)
			})
		}, store.ErrDamaged, "lease 6: cpu, memory: a VM of 9 cores and 1024 MB fits on no host (the largest have 1 core, 1024 MB)"},
		{"wrong schema version", func(t *testing.T, path string, _ []uint64) {
			editBolt(t, path, func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte("2")) })
		}, store.ErrSchemaTooNew, "file has schema 2, this bora reads up to 1; to recover, run the newer bora that wrote it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, ids := liveStore(t, nil)
			path := cfg.Daemon.Store
			c.damage(t, path, ids)
			before, _ := os.ReadFile(path)
			d, err := newDaemon(cfg)
			if err == nil {
				d.Close()
				t.Fatal("New accepted a damaged store")
			}
			msg := err.Error()
			t.Logf("refusal: %v", err)
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("New: %v, want %v", err, c.want)
			}
			for _, s := range []string{path, c.says, "to recover"} {
				if !strings.Contains(msg, s) {
					t.Errorf("New: %v\ndoes not say %q", err, s)
				}
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Error("the refused store was modified")
			}
		})
	}
}

// TestNewRefusesDamagedFakeState: a truncated or garbage fake-driver
// state file is refused with its path and the decode error (it used to
// panic in fake.(*Driver).Close, called by New's cleanup).
func TestNewRefusesDamagedFakeState(t *testing.T) {
	for name, content := range map[string]string{"truncated": `{"version":1,"vms":[{"na`, "garbage": "\x00\x01garbage"} {
		t.Run(name, func(t *testing.T) {
			c := testConfig(t.TempDir(), 1)
			file := c.Daemon.Store + ".fake.json"
			if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			d, err := newDaemon(c)
			if err == nil {
				d.Close()
				t.Fatal("New accepted a damaged fake state file")
			}
			if msg := err.Error(); !strings.Contains(msg, file) || !strings.Contains(msg, "decode: ") {
				t.Errorf("New: %v\nwant the file %s and its decode error", err, file)
			}
		})
	}
}

// TestSnapshotJobAndRestore: the snapshot job (every second, keep 2)
// writes checked snapshots and keeps the newest 2; after the store is
// truncated, New names the newest in its refusal, store.Restore puts it
// back, and the next New has all 12 leases.
func TestSnapshotJobAndRestore(t *testing.T) {
	cfg, _ := liveStore(t, func(c *config.Config) {
		c.Jobs.Snapshot, c.Jobs.SnapshotKeep = "@every 1s", 2
	})
	path := cfg.Daemon.Store
	// liveStore ran the daemon for well under a second: run it again
	// until the job has run at least three times.
	d := start(t, cfg)
	deadline := time.Now().Add(20 * time.Second)
	for {
		dir, _ := os.ReadDir(store.SnapshotDir(path))
		snaps, _ := store.Snapshots(path)
		if len(snaps) == 2 && len(dir) == 2 && time.Since(snaps[0].Time) < time.Minute && snaps[1].Time.Sub(snaps[0].Time) >= time.Second {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("snapshots %v, want the newest 2", snaps)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // one more run: still 2
	d.stop(t)
	snaps, _ := store.Snapshots(path)
	if len(snaps) != 2 {
		t.Fatalf("%d snapshots after more runs, want 2", len(snaps))
	}
	newest := snaps[1].Path
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := newDaemon(cfg)
	if err == nil || !strings.Contains(err.Error(), "bora store restore "+newest) {
		// newer snapshots may have been written meanwhile: the hint names
		// the newest at the time of the refusal.
		if now, _ := store.Snapshots(path); err == nil || !strings.Contains(err.Error(), "bora store restore "+now[len(now)-1].Path) {
			t.Fatalf("New: %v, want a refusal naming the newest snapshot", err)
		}
	}
	if _, err := store.Restore(newest, path, time.Now(), time.Second, checkSnapshot); err != nil {
		t.Fatal(err)
	}
	d2 := start(t, cfg)
	list, err := d2.ListLeases(context.Background(), alice, api.LeaseFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 12 {
		t.Errorf("%d leases after the restore, want 12", len(list))
	}
}
