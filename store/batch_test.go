package store

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

func TestBatchEmpty(t *testing.T) {
	cases := []struct {
		name string
		b    Batch
		want bool
	}{
		{"zero", Batch{}, true},
		{"empty maps and slices", Batch{Leases: map[uint64][]byte{}, DeleteHosts: []string{}}, true},
		{"one lease", Batch{Leases: leases(1)}, false},
		{"one lease deletion", Batch{DeleteLeases: []uint64{1}}, false},
		{"one host", Batch{Hosts: map[string][]byte{"h": []byte("x")}}, false},
		{"one host deletion", Batch{DeleteHosts: []string{"h"}}, false},
		{"one meta", Batch{Meta: map[string][]byte{"k": []byte("v")}}, false},
	}
	for _, c := range cases {
		if got := c.b.Empty(); got != c.want {
			t.Errorf("%s: Empty() = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCommitRoundTrip(t *testing.T) {
	host := func(v string) []byte { return []byte(`{"name":"` + v + `"}`) }
	cases := []struct {
		name    string
		batches []Batch
		leases  []uint64
		hosts   []string
		meta    map[string]string
	}{
		{name: "nothing", batches: []Batch{{}}},
		{
			name:    "put",
			batches: []Batch{{Leases: leases(1, 2), Hosts: map[string][]byte{"n1": host("n1")}, Meta: map[string][]byte{"seq": []byte("3")}}},
			leases:  []uint64{1, 2}, hosts: []string{"n1"}, meta: map[string]string{"seq": "3"},
		},
		{
			name: "overwrite keeps the last",
			batches: []Batch{
				{Meta: map[string][]byte{"seq": []byte("1")}},
				{Meta: map[string][]byte{"seq": []byte("2")}},
			},
			meta: map[string]string{"seq": "2"},
		},
		{
			// 1..5 put, then 2 and 4 deleted: 1, 3, 5 left; n2 deleted, n1 left.
			name: "delete",
			batches: []Batch{
				{Leases: leases(seq(1, 5)...), Hosts: map[string][]byte{"n1": host("n1"), "n2": host("n2")}},
				{DeleteLeases: []uint64{2, 4}, DeleteHosts: []string{"n2"}},
			},
			leases: []uint64{1, 3, 5}, hosts: []string{"n1"},
		},
		{
			name:    "deleting what is not there is not an error",
			batches: []Batch{{DeleteLeases: []uint64{7}, DeleteHosts: []string{"ghost", ""}}},
		},
		{
			name:    "delete and put other ids in one batch",
			batches: []Batch{{Leases: leases(1, 2)}, {Leases: leases(3), DeleteLeases: []uint64{1}}},
			leases:  []uint64{2, 3},
		},
		{
			name:    "extreme ids",
			batches: []Batch{{Leases: leases(0, 1<<63, ^uint64(0))}},
			leases:  []uint64{0, 1 << 63, ^uint64(0)},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openStore(t)
			for _, b := range c.batches {
				mustCommit(t, s, b)
			}
			want := &State{Schema: SchemaVersion, Leases: leases(c.leases...),
				Hosts: map[string][]byte{}, Meta: map[string][]byte{}}
			for _, h := range c.hosts {
				want.Hosts[h] = host(h)
			}
			for k, v := range c.meta {
				want.Meta[k] = []byte(v)
			}
			if d := diffState(mustLoad(t, s), want); d != "" {
				t.Error(d)
			}
			nl, nh, err := s.Counts()
			if err != nil || nl != len(c.leases) || nh != len(c.hosts) {
				t.Errorf("Counts() = %d, %d, %v; want %d, %d", nl, nh, err, len(c.leases), len(c.hosts))
			}
		})
	}
}

// TestCommitAtomic commits a Batch whose last part is bad and checks that
// none of it, not even the parts before, is stored.
func TestCommitAtomic(t *testing.T) {
	good := func() Batch {
		return Batch{
			Leases:       leases(10, 11),
			DeleteLeases: []uint64{1},
			Hosts:        map[string][]byte{"n9": []byte("x")},
			DeleteHosts:  []string{"n1"},
			Meta:         map[string][]byte{"seq": []byte("12")},
		}
	}
	cases := []struct {
		name  string
		spoil func(b *Batch)
		want  error
	}{
		{"empty lease value", func(b *Batch) { b.Leases[12] = nil }, ErrInvalid},
		{"empty host value", func(b *Batch) { b.Hosts["n10"] = []byte{} }, ErrInvalid},
		{"empty host name", func(b *Batch) { b.Hosts[""] = []byte("x") }, ErrInvalid},
		{"empty meta key", func(b *Batch) { b.Meta[""] = []byte("x") }, ErrInvalid},
		{"empty meta value", func(b *Batch) { b.Meta["clock"] = nil }, ErrInvalid},
		{"reserved meta key", func(b *Batch) { b.Meta["schema"] = []byte("2") }, ErrInvalid},
		{"lease put and deleted", func(b *Batch) { b.DeleteLeases = append(b.DeleteLeases, 10) }, ErrInvalid},
		{"host put and deleted", func(b *Batch) { b.DeleteHosts = append(b.DeleteHosts, "n9") }, ErrInvalid},
		// Found by bbolt inside the transaction, after the leases were put.
		{"host name too long", func(b *Batch) { b.Hosts[strings.Repeat("h", bolt.MaxKeySize+1)] = []byte("x") }, berrors.ErrKeyTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openStore(t)
			mustCommit(t, s, Batch{Leases: leases(1, 2), Hosts: map[string][]byte{"n1": []byte("x")},
				Meta: map[string][]byte{"seq": []byte("3")}})
			before := mustLoad(t, s)
			b := good()
			c.spoil(&b)
			if err := s.Commit(b); !errors.Is(err, c.want) {
				t.Fatalf("Commit: %v, want %v", err, c.want)
			}
			if d := diffState(mustLoad(t, s), before); d != "" {
				t.Errorf("refused batch left a trace: %s", d)
			}
			mustCommit(t, s, good()) // the store is still usable
		})
	}
}

func TestLease(t *testing.T) {
	s := openStore(t)
	mustCommit(t, s, Batch{Leases: leases(1, 2)})
	mustCommit(t, s, Batch{DeleteLeases: []uint64{2}})
	cases := []struct {
		id   uint64
		want error
	}{{1, nil}, {2, ErrNotFound}, {3, ErrNotFound}}
	for _, c := range cases {
		v, err := s.Lease(c.id)
		if !wantErr(err, c.want) {
			t.Errorf("Lease(%d): %v, want %v", c.id, err, c.want)
		}
		if c.want == nil && string(v) != string(leaseValue(c.id)) {
			t.Errorf("Lease(%d) = %s, want %s", c.id, v, leaseValue(c.id))
		}
	}
}

func TestValuesAreCopies(t *testing.T) {
	s := openStore(t)
	v := leaseValue(1)
	mustCommit(t, s, Batch{Leases: map[uint64][]byte{1: v}})
	v[0] = 'X' // the caller reuses its buffer after Commit

	st := mustLoad(t, s)
	st.Leases[1][1] = 'Y' // and scribbles on what Load returned
	got, err := s.Lease(1)
	if err != nil {
		t.Fatal(err)
	}
	got[2] = 'Z'
	if again, _ := s.Lease(1); string(again) != string(leaseValue(1)) {
		t.Errorf("stored value changed through a caller's slice: %s", again)
	}
}

// TestLeaseKeyOrder checks the layout promise: a cursor over the leases
// bucket walks ids in numeric order.
func TestLeaseKeyOrder(t *testing.T) {
	s := openStore(t)
	mustCommit(t, s, Batch{Leases: leases(300, 2, 1<<40, 70, 256, 1)})
	want := []uint64{1, 2, 70, 256, 300, 1 << 40}
	var got []uint64
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketLeases).ForEach(func(k, _ []byte) error {
			got = append(got, binary.BigEndian.Uint64(k))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("cursor order %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("cursor order %v, want %v", got, want)
		}
	}
}
