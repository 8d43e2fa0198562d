package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// newTestClient serves ts over httptest and returns a client with token.
func newTestClient(t *testing.T, ts *testServer, token string) *Client {
	t.Helper()
	hs := httptest.NewServer(ts.Handler())
	t.Cleanup(hs.Close)
	c, err := NewClient(ClientOptions{Server: hs.URL, Token: token, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClientEveryMethod(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	alice := newTestClient(t, ts, aliceToken)
	admin := newTestClient(t, ts, adminToken)
	ctx := context.Background()

	l, err := alice.CreateLease(ctx, LeaseRequest{Name: "web", VMs: 2, Duration: "2h"})
	if err != nil || l.ID != 1 || l.User != "alice" || l.State != "scheduled" || l.VMs != 2 {
		t.Fatalf("CreateLease: %+v %v", l, err)
	}
	if _, err := alice.CreateLease(ctx, LeaseRequest{VMs: 0, Duration: "2h"}); !isAPIError(err, 400, "vms") ||
		err.Error() != "400 Bad Request: vms: must be positive" {
		t.Errorf("CreateLease, 0 VMs: %v", err)
	}
	ls, err := alice.ListLeases(ctx, LeaseFilter{State: "scheduled", User: "alice"})
	if err != nil || len(ls) != 1 || ls[0].Name != "web" {
		t.Errorf("ListLeases: %+v %v", ls, err)
	}
	if ls, err := alice.ListLeases(ctx, LeaseFilter{State: "done"}); err != nil || len(ls) != 0 {
		t.Errorf("ListLeases done: %+v %v", ls, err)
	}
	if got, err := alice.GetLease(ctx, 1); err != nil || got.Name != "web" || len(got.Plan) != 1 {
		t.Errorf("GetLease: %+v %v", got, err)
	}
	if _, err := alice.GetLease(ctx, 42); !errors.Is(err, ErrNotFound) || !isAPIError(err, 404, "") {
		t.Errorf("GetLease 42: %v", err)
	}
	if _, err := alice.LeaseAction(ctx, 1, "suspend"); !errors.Is(err, ErrForbidden) {
		t.Errorf("LeaseAction by a user: %v", err)
	}
	if got, err := admin.LeaseAction(ctx, 1, "migrate"); err != nil || got.State != "migrating" {
		t.Errorf("LeaseAction: %+v %v", got, err)
	}
	if got, err := alice.CancelLease(ctx, 1); err != nil || got.State != "cancelled" {
		t.Errorf("CancelLease: %+v %v", got, err)
	}
	if _, err := alice.CancelLease(ctx, 1); !errors.Is(err, ErrConflict) {
		t.Errorf("CancelLease twice: %v", err)
	}
	if hs, err := alice.ListHosts(ctx); err != nil || len(hs) != 2 || hs[0].Name != "h1" {
		t.Errorf("ListHosts: %+v %v", hs, err)
	}
	if h, err := alice.GetHost(ctx, "h2"); err != nil || h.Power != "off" {
		t.Errorf("GetHost: %+v %v", h, err)
	}
	if h, err := admin.HostAction(ctx, "h2", "on"); err != nil || h.Power != "on" {
		t.Errorf("HostAction: %+v %v", h, err)
	}
	if _, err := admin.HostAction(ctx, "h2", "explode"); !isAPIError(err, 404, "") {
		t.Errorf("HostAction explode: %v", err)
	}
	if s, err := alice.Schedule(ctx, "-1h", "+2h"); err != nil || len(s.Intervals) != 1 || !s.From.Equal(ts.svc.now.Add(-time.Hour)) {
		t.Errorf("Schedule: %+v %v", s, err)
	}
	if _, err := alice.Schedule(ctx, "soon", ""); !isAPIError(err, 400, "from") {
		t.Errorf("Schedule soon: %v", err)
	}
	if st, err := alice.Stats(ctx); err != nil || st.Hosts != 2 {
		t.Errorf("Stats: %+v %v", st, err)
	}
	if err := alice.Health(ctx); err != nil {
		t.Errorf("Health: %v", err)
	}
	ts.svc.setUnhealthy(errors.New("stuck"))
	if err := alice.Health(ctx); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Health, unhealthy: %v", err)
	}
	nobody := newTestClient(t, ts, "")
	if _, err := nobody.Stats(ctx); !isAPIError(err, 401, "") {
		t.Errorf("no token: %v", err)
	}
}

func isAPIError(err error, status int, field string) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == status && ae.Field == field && ae.Message != ""
}

func TestClientReadsNonJSONErrors(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "<html>bad gateway</html>", http.StatusBadGateway)
	}))
	defer hs.Close()
	c, err := NewClient(ClientOptions{Server: hs.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stats(context.Background())
	if err == nil || err.Error() != "502 Bad Gateway: <html>bad gateway</html>" {
		t.Errorf("got %v", err)
	}
}

func TestNewClientOptions(t *testing.T) {
	cases := []struct {
		name string
		opts ClientOptions
		ok   bool
	}{
		{"socket", ClientOptions{Socket: "/run/bora/bora.sock"}, true},
		{"https", ClientOptions{Server: "https://head:8443"}, true},
		{"http on loopback", ClientOptions{Server: "http://127.0.0.1:8080"}, true},
		{"http elsewhere", ClientOptions{Server: "http://head:8080"}, false},
		{"http elsewhere, insecure", ClientOptions{Server: "http://head:8080", Insecure: true}, true},
		{"no scheme", ClientOptions{Server: "head:8443"}, false},
		{"nothing", ClientOptions{}, false},
		{"missing CA file", ClientOptions{Server: "https://head:8443", CACert: "/nonexistent.pem"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewClient(tc.opts); (err == nil) != tc.ok {
				t.Errorf("error %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestClientUnreachableServer(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	url := hs.URL
	hs.Close()
	c, err := NewClient(ClientOptions{Server: url})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stats(context.Background())
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "BORA_SERVER") {
		t.Errorf("got %v", err)
	}
}

// TestClientRefusesRedirects: a server that redirects elsewhere (here to
// another port of the same host, where net/http would send the token
// along) gets an error, and the token never reaches the other server.
func TestClientRefusesRedirects(t *testing.T) {
	got := make(chan string, 1)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Authorization")
	}))
	defer other.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	c, err := NewClient(ClientOptions{Server: redirector.URL, Token: aliceToken})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stats(context.Background())
	if err == nil || !strings.Contains(err.Error(), "never redirects") {
		t.Fatalf("got %v, want a refusal to follow the redirect", err)
	}
	select {
	case a := <-got:
		t.Fatalf("the other server got a request (Authorization %q)", a)
	default:
	}
}

// TestNewClientRefusesTokenInClear: plain http:// to a host that is not
// loopback is refused before anything is sent, saying why.
func TestNewClientRefusesTokenInClear(t *testing.T) {
	for _, server := range []string{"http://head:8080", "http://10.0.0.1:8080", "http://127.0.0.1@evil.example:80", "http://0.0.0.0:8080"} {
		_, err := NewClient(ClientOptions{Server: server, Token: aliceToken})
		if err == nil || !strings.Contains(err.Error(), "bearer token would travel in clear") {
			t.Errorf("%s: %v, want a refusal naming the token", server, err)
		}
	}
	for _, server := range []string{"http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080"} {
		if _, err := NewClient(ClientOptions{Server: server, Token: aliceToken}); err != nil {
			t.Errorf("%s (loopback): %v", server, err)
		}
	}
}
