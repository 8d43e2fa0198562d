package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestCompact(t *testing.T) {
	cases := []struct {
		name   string
		put    int // leases 1..put, 1 KiB each
		keep   int // leases 1..keep survive
		shrink bool
	}{
		{"empty store", 0, 0, false},
		// 4000 KiB of leases, 3950 deleted: the file keeps the pages,
		// the compacted copy needs about 50 KiB of them.
		{"after deleting most leases", 4000, 50, true},
		{"nothing deleted", 300, 300, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openStore(t)
			big := bytes.Repeat([]byte("x"), 1024)
			for lo := 1; lo <= c.put; lo += 500 {
				b := Batch{Leases: map[uint64][]byte{}}
				for id := lo; id < lo+500 && id <= c.put; id++ {
					b.Leases[uint64(id)] = big
				}
				mustCommit(t, s, b)
			}
			if c.keep < c.put {
				mustCommit(t, s, Batch{DeleteLeases: seq(uint64(c.keep+1), uint64(c.put))})
			}
			mustCommit(t, s, Batch{Meta: map[string][]byte{"seq": []byte("1")}, Hosts: map[string][]byte{"n1": []byte("h")}})
			want := mustLoad(t, s)
			before := fileSize(t, s.Path())

			if err := s.Compact(); err != nil {
				t.Fatalf("Compact: %v", err)
			}
			after := fileSize(t, s.Path())
			t.Logf("%d -> %d bytes", before, after)
			if after > before || (c.shrink && after > before/4) {
				t.Errorf("file %d -> %d bytes, want no growth (shrink to < 1/4: %v)", before, after, c.shrink)
			}
			if d := diffState(mustLoad(t, s), want); d != "" {
				t.Errorf("after Compact: %s", d)
			}
			if _, err := os.Stat(s.Path() + ".compact"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("temporary file left behind: %v", err)
			}
			if err := s.Check(); err != nil {
				t.Errorf("Check after Compact: %v", err)
			}
			mustCommit(t, s, Batch{Leases: leases(1 << 20)}) // still usable
		})
	}
}

func TestCompactReplacesLeftover(t *testing.T) {
	s := openStore(t)
	mustCommit(t, s, Batch{Leases: leases(1, 2, 3)})
	// A crashed Compact left a half-written copy behind.
	if err := os.WriteFile(s.Path()+".compact", []byte("half a file"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if n, _, err := s.Counts(); err != nil || n != 3 {
		t.Errorf("Counts after Compact = %d, %v; want 3", n, err)
	}
}

func TestBackup(t *testing.T) {
	s := openStore(t)
	mustCommit(t, s, Batch{Leases: leases(seq(1, 200)...), Hosts: map[string][]byte{"n1": []byte("h")},
		Meta: map[string][]byte{"seq": []byte("201")}})
	mustCommit(t, s, Batch{DeleteLeases: seq(1, 100)})
	if err := s.AppendAccounting(t0, []byte("acct")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := s.Backup(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("Backup = %d, %v; wrote %d bytes", n, err, buf.Len())
	}
	path := filepath.Join(t.TempDir(), "restore", "bora.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, buf.Bytes())

	restored := openStoreAt(t, path)
	if d := diffState(mustLoad(t, restored), mustLoad(t, s)); d != "" {
		t.Errorf("restored backup: %s", d)
	}
	if recs, err := restored.Accounting(t0, t0.Add(1)); err != nil || len(recs) != 1 {
		t.Errorf("restored accounting = %v, %v; want one snapshot", recs, err)
	}
}

// TestCheckFindsProblems breaks a store behind its back, one way per
// case, and expects Check to name the problem.
func TestCheckFindsProblems(t *testing.T) {
	putRaw := func(bucket, key, value []byte) func(*bolt.Tx) error {
		return func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put(key, value) }
	}
	cases := []struct {
		name  string
		spoil func(*bolt.Tx) error
		want  []string
	}{
		{"short lease key", putRaw(bucketLeases, []byte{1, 2, 3}, []byte("v")), []string{"leases: key 010203 is 3 bytes"}},
		{"empty host value", putRaw(bucketHosts, []byte("n1"), []byte{}), []string{"hosts: key 6e31 has an empty value"}},
		{"long accounting key", putRaw(bucketAccounting, make([]byte, 9), []byte("v")), []string{"accounting: key"}},
		{"schema garbage", putRaw(bucketMeta, keySchema, []byte("two")), []string{`schema "two"`}},
		{"schema too new", putRaw(bucketMeta, keySchema, []byte("99")), []string{`schema "99"`}},
		{"schema missing", func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Delete(keySchema) }, []string{`schema ""`}},
		{"bucket missing", func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketHosts) }, []string{`no "hosts" bucket`}},
		{"meta missing", func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketMeta) }, []string{`no "meta" bucket`}},
		{"foreign bucket", func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("x")); return err }, []string{`unexpected bucket "x"`}},
		{"nested bucket", func(tx *bolt.Tx) error {
			_, err := tx.Bucket(bucketLeases).CreateBucket(leaseKey(9))
			return err
		}, []string{"leases: key 0000000000000009 is a nested bucket"}},
		{"two problems, both reported", func(tx *bolt.Tx) error {
			if err := putRaw(bucketLeases, []byte{1}, []byte("v"))(tx); err != nil {
				return err
			}
			return putRaw(bucketMeta, []byte("k"), []byte{})(tx)
		}, []string{"leases: key 01 is 1 bytes", "meta: key 6b has an empty value"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openUnchecked(t)
			mustCommit(t, s, Batch{Leases: leases(1, 2), Hosts: map[string][]byte{"n2": []byte("h")}})
			if err := s.Check(); err != nil {
				t.Fatalf("Check before breaking: %v", err)
			}
			rawUpdate(t, s, c.spoil)
			err := s.Check()
			if err == nil {
				t.Fatal("Check found nothing")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Check: %v\nwant it to mention %q", err, w)
				}
			}
		})
	}
}

// TestConcurrentUse runs writers, readers and a Compact at once (meant
// for -race) and checks that no commit is lost.
func TestConcurrentUse(t *testing.T) {
	s := openStore(t)
	const writers, each = 4, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers*each+100)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				id := uint64(w*each + i + 1)
				if err := s.Commit(Batch{Leases: leases(id)}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			if _, err := s.Load(); err != nil {
				errs <- err
			}
			if err := s.Check(); err != nil {
				errs <- err
			}
		}
	})
	wg.Go(func() {
		if err := s.Compact(); err != nil {
			errs <- err
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// 4 writers x 40 leases, ids 1..160.
	if n, _, err := s.Counts(); err != nil || n != writers*each {
		t.Errorf("Counts = %d, %v; want %d", n, err, writers*each)
	}
}

// TestUsage: 1,000 leases of 400 bytes are at least 400,000 bytes of data,
// in a file at least that large. With 950 of them deleted the file keeps
// its size but holds a tenth of the data; compacted, it shrinks to no
// more than twice the data left (bbolt grows files by doubling).
func TestUsage(t *testing.T) {
	s := openStore(t)
	v := bytes.Repeat([]byte("x"), 400)
	b := Batch{Leases: map[uint64][]byte{}}
	for id := uint64(1); id <= 1000; id++ {
		b.Leases[id] = v
	}
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	u, err := s.Usage()
	if err != nil {
		t.Fatal(err)
	}
	if u.Data < 400_000 || u.File < u.Data || u.File != fileSize(t, s.Path()) {
		t.Fatalf("1,000 leases: %+v", u)
	}
	del := Batch{}
	for id := uint64(51); id <= 1000; id++ {
		del.DeleteLeases = append(del.DeleteLeases, id)
	}
	if err := s.Commit(del); err != nil {
		t.Fatal(err)
	}
	after, err := s.Usage()
	if err != nil {
		t.Fatal(err)
	}
	if after.File != u.File || after.Data > u.Data/10 || after.Data < 50*400 {
		t.Fatalf("50 leases left: %+v (was %+v)", after, u)
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	c, err := s.Usage()
	if err != nil {
		t.Fatal(err)
	}
	if c.File > 2*c.Data+64<<10 || c.File >= after.File {
		t.Fatalf("compacted: %+v (was %+v)", c, after)
	}
	if _, err := (&Store{}).Usage(); !errors.Is(err, ErrClosed) {
		t.Fatalf("usage of a closed store: %v", err)
	}
}
