package gateway

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/bora-sched/bora/api"
)

// TestMapSurvivesReopen: records written, the file closed and opened
// again: every record is there as written, and ids go on from the last.
func TestMapSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "gateway.db")
	m, err := OpenMap(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	recs := []Record{
		{User: "alice", Submitted: at, Cluster: "b", ClusterID: 17, Tries: []Try{
			{At: at, Cluster: "a", Outcome: OutcomeRefused, Reason: "admission-limit", Detail: "1 external leases admitted, limit 1"},
			{At: at, Cluster: "b", Outcome: OutcomeForwarded}}, Last: &api.Lease{ID: 17, State: "queued"}},
		{User: "bob", Submitted: at, Tries: []Try{{At: at, Cluster: "a", Outcome: OutcomeRefused, Reason: "availability"}},
			Last: &api.Lease{ID: 3, State: "rejected", Reason: "availability"}},
	}
	for i := range recs {
		if err := m.New(&recs[i]); err != nil {
			t.Fatal(err)
		}
		if recs[i].ID != uint64(i+1) {
			t.Fatalf("record %d got id %d", i, recs[i].ID)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m, err = OpenMap(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	all, err := m.All()
	if err != nil || !reflect.DeepEqual(all, recs) {
		t.Fatalf("after reopening: %+v, %v\nwant %+v", all, err, recs)
	}
	r := Record{User: "carol"}
	if err := m.New(&r); err != nil || r.ID != 3 {
		t.Fatalf("the next id after reopening: %d, %v; want 3", r.ID, err)
	}
	if got, ok, err := m.Get(1); !ok || err != nil || got.ClusterID != 17 {
		t.Fatalf("Get(1) = %+v, %v, %v", got, ok, err)
	}
	if _, ok, _ := m.Get(9); ok {
		t.Fatal("Get(9) found a record")
	}
}

// TestMapRefusesOtherFiles: a bbolt file with other buckets (borad's
// store, say) is not taken for a gateway map; a second opener waits for
// the lock and gives up.
func TestMapRefusesOtherFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("leases")); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenMap(path, 100*time.Millisecond); !errors.Is(err, ErrStore) {
		t.Fatalf("opening a file another process holds: %v, want ErrStore", err)
	}
	db.Close()
	if _, err := OpenMap(path, time.Second); !errors.Is(err, ErrStore) {
		t.Fatalf("opening a bbolt file that is not a gateway map: %v, want ErrStore", err)
	}
}
