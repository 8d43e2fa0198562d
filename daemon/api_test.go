package daemon

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/config"
)

// runWithAPI starts a daemon on c and its API server, waits until the API
// is ready, and stops both when tb ends (an error either returns fails tb).
func runWithAPI(tb testing.TB, c config.Config) *Daemon {
	tb.Helper()
	lg := logrus.New()
	lg.SetOutput(io.Discard)
	d, err := New(context.Background(), Options{Config: c, Log: lg})
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := NewAPIServer(d, c, lg)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 2)
	go func() { done <- d.Run(ctx) }()
	go func() { done <- srv.Serve(ctx) }()
	tb.Cleanup(func() {
		cancel()
		for i := 0; i < 2; i++ {
			if err := <-done; err != nil {
				tb.Error(err)
			}
		}
	})
	select {
	case <-srv.Ready():
	case <-time.After(10 * time.Second):
		tb.Fatal("API not ready")
	}
	return d
}

// The tokens of serveAPI's users.
const (
	aliceTok = "alice-0123456789abcdef"
	bobTok   = "bob-0123456789abcdef"
	adminTok = "admin-0123456789abcdef"
)

// serveAPI runs a daemon on c (real clock) with its API server on the unix
// socket, and returns the daemon and a client per token.
func serveAPI(t *testing.T, c config.Config) (*Daemon, func(token string) *api.Client) {
	t.Helper()
	c.Daemon.Clock, c.Daemon.Start = "real", ""
	c.API.Tokens = []config.Token{{Token: aliceTok, User: "alice"}, {Token: bobTok, User: "bob"},
		{Token: adminTok, User: "ops", Admin: true}}
	d := runWithAPI(t, c)
	return d, func(token string) *api.Client {
		cl, err := api.NewClient(api.ClientOptions{Socket: c.API.Socket, Token: token})
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
}

// TestPrivateData: with api.private_data on, alice sees bob's lease in
// the schedule and the host list only as busy (no id), her own and an
// admin's view in full; bob's lease itself stays refused to her. Off (after
// a reload), she sees its id again.
func TestPrivateData(t *testing.T) {
	c := testConfig(t.TempDir(), 2)
	c.API.PrivateData = true
	d, client := serveAPI(t, c)
	ctx := context.Background()
	alice, bob, ops := client(aliceTok), client(bobTok), client(adminTok)
	// Two hosts of one core: each immediate lease of one VM takes one.
	la, err := alice.CreateLease(ctx, api.LeaseRequest{Name: "mine", VMs: 1, Duration: "2h", Start: "now"})
	if err != nil || la.State == "rejected" {
		t.Fatalf("alice's lease: %v %+v", err, la)
	}
	lb, err := bob.CreateLease(ctx, api.LeaseRequest{Name: "secret", VMs: 1, Duration: "2h", Start: "now"})
	if err != nil || lb.State == "rejected" {
		t.Fatalf("bob's lease: %v %+v", err, lb)
	}
	// On each host, now: one lease; alice sees hers by id, bob's as busy.
	hosts, err := alice.ListHosts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	busy := 0
	for _, h := range hosts {
		ids, busy = append(ids, h.Leases...), busy+h.Busy
	}
	if len(ids) != 1 || ids[0] != la.ID || busy != 1 {
		t.Fatalf("alice's host list: ids %v, %d busy; want [%d] and 1 busy", ids, busy, la.ID)
	}
	sc, err := alice.Schedule(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	mine, hidden := 0, 0
	for _, iv := range sc.Intervals {
		switch {
		case iv.Lease == la.ID && iv.Kind != api.BusyKind:
			mine++
		case iv.Lease == 0 && iv.Kind == api.BusyKind && iv.VMs == 0 && iv.CPU == 1:
			hidden++
		default:
			t.Errorf("alice sees %+v", iv)
		}
	}
	if mine == 0 || hidden == 0 {
		t.Fatalf("alice's schedule: %d of her intervals, %d busy; want some of each: %+v", mine, hidden, sc.Intervals)
	}
	if _, err := alice.GetLease(ctx, lb.ID); !errors.Is(err, api.ErrNotFound) {
		t.Fatalf("bob's lease shown to alice: %v", err)
	}
	// The admin sees everything.
	osc, err := ops.Schedule(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, iv := range osc.Intervals {
		if iv.Kind == api.BusyKind || iv.Lease == 0 {
			t.Fatalf("the admin sees a busy interval: %+v", iv)
		}
	}
	// Off again (reload): alice sees bob's lease id in the host list.
	next := c
	next.API.PrivateData = false
	d.Reload(next)
	deadline := time.Now().Add(10 * time.Second)
	for {
		hosts, err := alice.ListHosts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seen := false
		for _, h := range hosts {
			for _, id := range h.Leases {
				seen = seen || id == lb.ID
			}
		}
		if seen {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("with private_data off, alice does not see lease %d: %+v", lb.ID, hosts)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAPIEdges: through the real server over the daemon, a window from
// year 1 is clamped to the scheduler's epoch and the answer says so, and
// a body that is not declared JSON is refused with 415.
func TestAPIEdges(t *testing.T) {
	c := testConfig(t.TempDir(), 1)
	_, client := serveAPI(t, c)
	ctx := context.Background()
	sc, err := client(aliceTok).Schedule(ctx, "0001-01-01T00:00:00Z", "")
	if err != nil {
		t.Fatal(err)
	}
	epoch := time.Unix(0, 0).UTC()
	if sc.Clamped == nil || sc.Clamped.From == nil || !sc.Clamped.From.Equal(epoch) || !sc.From.Equal(epoch) ||
		!strings.Contains(sc.Clamped.Reason, "before the scheduler's epoch 1970-01-01T00:00:00Z") {
		t.Fatalf("schedule from year 1: from %v, clamped %+v; want from 1970-01-01 and a reason", sc.From, sc.Clamped)
	}
	if sc, err := client(aliceTok).Schedule(ctx, "-1h", ""); err != nil || sc.Clamped != nil {
		t.Fatalf("an ordinary window: %v, clamped %+v", err, sc.Clamped)
	}

	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dl net.Dialer
		return dl.DialContext(ctx, "unix", filepath.Clean(c.API.Socket))
	}}}
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded"} {
		req, _ := http.NewRequest("POST", "http://bora/v1/leases", strings.NewReader(`{"vms":1,"duration":"1h"}`))
		req.Header.Set("Authorization", "Bearer "+aliceTok)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(string(b), "Content-Type") {
			t.Errorf("Content-Type %q: %d %s; want 415 naming the header", ct, resp.StatusCode, b)
		}
	}
}
