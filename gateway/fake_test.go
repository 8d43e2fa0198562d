package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/fielderr"
	"github.com/bora-sched/bora/scheduler"
)

// fakeCluster is a cluster behind the gateway: a real api.Server (so the
// gateway's client goes over HTTP with its token) over a hand-written
// Service that keeps leases in a map. limit > 0 makes its admission stage
// refuse an external lease once limit are held; down makes every request
// fail with 502, as a cluster that does not answer.
type fakeCluster struct {
	name  string
	hosts int
	limit int
	down  atomic.Bool
	srv   *httptest.Server

	mu     sync.Mutex
	leases map[uint64]api.Lease
	next   uint64
	stats  api.Stats // returned with Hosts set
	dryFor time.Duration
}

const fakeToken = "gateway-token-0123456789"

func newFakeCluster(t *testing.T, name string, hosts, limit int) *fakeCluster {
	t.Helper()
	f := &fakeCluster{name: name, hosts: hosts, limit: limit, leases: map[uint64]api.Lease{}}
	s, err := api.NewServer(api.ServerConfig{Tokens: []api.Token{{Token: fakeToken, User: "gateway", External: true}}}, f, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// config is a cluster entry for f.
func (f *fakeCluster) config() Cluster {
	c := defaultCluster()
	c.Name, c.URL, c.Token = f.name, f.srv.URL, fakeToken
	return c
}

func (f *fakeCluster) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.held()
}

// held counts the leases not rejected; f.mu is held.
func (f *fakeCluster) held() int {
	n := 0
	for _, l := range f.leases {
		if l.State != "rejected" {
			n++
		}
	}
	return n
}

func (f *fakeCluster) CreateLease(_ context.Context, c api.Caller, r api.LeaseRequest) (api.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Origin != "external" || !c.External {
		return api.Lease{}, fmt.Errorf("fake cluster: want external leases from an external caller: %w", api.ErrForbidden)
	}
	if r.VMs > f.hosts {
		return api.Lease{}, fielderr.New("vms", "%d VMs on %d hosts", r.VMs, f.hosts)
	}
	f.next++
	l := api.Lease{ID: f.next, Name: r.Name, User: c.User, Origin: r.Origin, VMs: r.VMs, State: "queued",
		History: []api.Event{{State: "pending"}}}
	if f.limit > 0 && f.held() >= f.limit {
		l.State, l.Reason, l.Detail = "rejected", string(scheduler.ReasonAdmissionLimit),
			fmt.Sprintf("%d external leases admitted, limit %d (one-at-a-time)", f.limit, f.limit)
	}
	f.leases[l.ID] = l
	return l, nil
}

func (f *fakeCluster) ListLeases(_ context.Context, _ api.Caller, _ api.LeaseFilter) ([]api.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []api.Lease
	for _, l := range f.leases {
		out = append(out, l)
	}
	return out, nil
}

func (f *fakeCluster) GetLease(_ context.Context, _ api.Caller, id uint64) (api.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.leases[id]
	if !ok {
		return api.Lease{}, api.ErrNotFound
	}
	return l, nil
}

// set changes lease id's state (as the cluster's scheduling would).
func (f *fakeCluster) set(id uint64, state string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.leases[id]
	l.State = state
	f.leases[id] = l
}

func (f *fakeCluster) CancelLease(_ context.Context, _ api.Caller, id uint64) (api.Lease, error) {
	f.set(id, "cancelled")
	return f.GetLease(context.Background(), api.Caller{}, id)
}

func (f *fakeCluster) LeaseAction(context.Context, api.Caller, uint64, string) (api.Lease, error) {
	return api.Lease{}, api.ErrForbidden
}
func (f *fakeCluster) ListHosts(context.Context, api.Caller) ([]api.Host, error) { return nil, nil }
func (f *fakeCluster) GetHost(context.Context, api.Caller, string) (api.Host, error) {
	return api.Host{}, api.ErrNotFound
}
func (f *fakeCluster) HostAction(context.Context, api.Caller, string, string) (api.Host, error) {
	return api.Host{}, api.ErrForbidden
}
func (f *fakeCluster) Schedule(context.Context, api.Caller, time.Time, time.Time) (api.Schedule, error) {
	return api.Schedule{}, nil
}
func (f *fakeCluster) Stats(context.Context, api.Caller) (api.Stats, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.stats
	s.Hosts = f.hosts
	return s, nil
}
func (f *fakeCluster) Admission(context.Context, api.Caller) (api.Admission, error) {
	return api.Admission{}, api.ErrNotFound
}
func (f *fakeCluster) Health(context.Context) error { return nil }

// testConfig is a gateway over the clusters with policy, its map in dir.
func testConfig(dir, policy string, cs ...*fakeCluster) Config {
	c := DefaultConfig()
	c.Listen, c.InsecureTCP, c.Store, c.Policy = "127.0.0.1:0", true, filepath.Join(dir, "gateway.db"), policy
	c.Tokens = []Token{{Token: "alice-token-0123456789", User: "alice"}}
	for _, f := range cs {
		c.Clusters = append(c.Clusters, f.config())
	}
	return c
}

// newGateway builds the gateway of c, polled once, closed at the end.
func newGateway(t *testing.T, c Config) *Gateway {
	t.Helper()
	g, err := New(Options{Config: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		checkMap(t, g.leases)
		_ = g.Close()
	})
	g.Poll(context.Background())
	return g
}

// checkMap runs bbolt's consistency check over the map, and checks that
// every record decodes, is stored under its own id, and names a cluster
// exactly when its last try forwarded it.
func checkMap(t *testing.T, m *Map) {
	t.Helper()
	err := m.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			t.Errorf("bbolt check: %v", err)
		}
		return tx.Bucket(bucketLeases).ForEach(func(k, data []byte) error {
			var r Record
			if err := decode(data, &r); err != nil {
				return err
			}
			if string(key(r.ID)) != string(k) {
				t.Errorf("record %d stored under key %x", r.ID, k)
			}
			forwarded := len(r.Tries) > 0 && r.Tries[len(r.Tries)-1].Outcome == OutcomeForwarded
			if forwarded != (r.Cluster != "") || r.Last == nil {
				t.Errorf("record %d: cluster %q, tries %+v, last %v", r.ID, r.Cluster, r.Tries, r.Last != nil)
			}
			return nil
		})
	})
	if err != nil {
		t.Error(err)
	}
}

var alice = api.Caller{User: "alice", UID: -1}

// submit creates an external lease of one VM through g.
func submit(t *testing.T, g *Gateway) api.Lease {
	t.Helper()
	l, err := g.CreateLease(context.Background(), alice, api.LeaseRequest{VMs: 1, Duration: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// DryRunLease plans every lease to start at dryStart and end dryFor
// later (earliest-finish reads these); a zero dryFor rejects it.
func (f *fakeCluster) DryRunLease(_ context.Context, _ api.Caller, _ api.LeaseRequest) (api.LeasePlan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dryFor == 0 {
		return api.LeasePlan{State: "rejected", Reason: "no-capacity"}, nil
	}
	return api.LeasePlan{State: "scheduled", Start: dryStart, End: dryStart.Add(f.dryFor)}, nil
}

var dryStart = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
