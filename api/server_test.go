package api

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
)

// The tokens of the test servers: two users, an admin and a gateway.
const (
	aliceToken   = "alice-0123456789abcdef"
	bobToken     = "bob-0123456789abcdef"
	adminToken   = "admin-0123456789abcdef"
	gatewayToken = "gateway-0123456789abcdef"
)

var testTokens = []Token{
	{Token: aliceToken, User: "alice"},
	{Token: bobToken, User: "bob"},
	{Token: adminToken, User: "root-ops", Admin: true},
	{Token: gatewayToken, User: "gateway", External: true},
}

// testServer is a server over a fake service, with its registry and log.
type testServer struct {
	*Server
	svc  *fakeService
	reg  *prometheus.Registry
	logs *logtest.Hook
}

func newTestServer(t *testing.T, cfg ServerConfig) *testServer {
	t.Helper()
	if cfg.Tokens == nil {
		cfg.Tokens = testTokens
	}
	svc := newFakeService()
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return svc.now }
	}
	logger, hook := logtest.NewNullLogger()
	logger.SetLevel(logrus.DebugLevel)
	reg := prometheus.NewRegistry()
	s, err := NewServer(cfg, svc, reg, logrus.NewEntry(logger))
	if err != nil {
		t.Fatal(err)
	}
	return &testServer{Server: s, svc: svc, reg: reg, logs: hook}
}

// do sends a request straight to the handler (no connection: the token is
// the only identity) and returns the recorder.
func (ts *testServer) do(t *testing.T, method, path, token, body string) *httptest.ResponseRecorder {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, path, rd)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	ts.Handler().ServeHTTP(w, r)
	return w
}

// create makes a lease as the token's user and returns its id.
func (ts *testServer) create(t *testing.T, token, body string) uint64 {
	t.Helper()
	w := ts.do(t, "POST", "/v1/leases", token, body)
	if w.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	var l Lease
	if err := json.Unmarshal(w.Body.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	return l.ID
}

func TestBadRequests(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	ts.create(t, aliceToken, `{"vms":1,"duration":"1h"}`) // lease 1, alice's
	ts.create(t, bobToken, `{"vms":1,"duration":"1h"}`)   // lease 2, bob's
	ts.create(t, aliceToken, `{"vms":1,"duration":"1h"}`) // lease 3, alice's, cancelled below
	if w := ts.do(t, "DELETE", "/v1/leases/3", aliceToken, ""); w.Code != http.StatusOK {
		t.Fatalf("cancel: %d %s", w.Code, w.Body)
	}
	big := `{"name":"` + strings.Repeat("x", 10<<20) + `","vms":1,"duration":"1h"}`

	cases := []struct {
		name, method, path, token, body string
		status                          int
		field                           string
		msg                             string // a part of the message
	}{
		{"good token", "GET", "/v1/leases", aliceToken, "", 200, "", ""},
		{"malformed JSON", "POST", "/v1/leases", aliceToken, `{"vms":`, 400, "", "byte offset 7"},
		{"syntax error", "POST", "/v1/leases", aliceToken, `{"vms":1,}`, 400, "", "byte offset 10"},
		{"unknown field", "POST", "/v1/leases", aliceToken, `{"vms":1,"duration":"1h","colour":"red"}`, 400, "colour", "unknown field"},
		{"wrong type", "POST", "/v1/leases", aliceToken, `{"vms":"two","duration":"1h"}`, 400, "vms", "want an integer, got string"},
		{"fraction for an integer", "POST", "/v1/leases", aliceToken, `{"vms":1.5,"duration":"1h"}`, 400, "vms", "got number 1.5"},
		{"trailing data", "POST", "/v1/leases", aliceToken, `{"vms":1,"duration":"1h"} {}`, 400, "", "exactly one JSON value"},
		{"array body", "POST", "/v1/leases", aliceToken, `[{"vms":1}]`, 400, "", "want a JSON object, got an array"},
		{"null body", "POST", "/v1/leases", aliceToken, `null`, 400, "", "want a JSON object, got null"},
		{"empty body", "POST", "/v1/leases", aliceToken, ``, 400, "", "empty request body"},
		{"invalid UTF-8 in a value", "POST", "/v1/leases", aliceToken, "{\"vms\":1,\"duration\":\"1h\",\"name\":\"caf\xe9\"}", 400, "name", "name: not valid UTF-8"},
		{"invalid UTF-8 in an image", "POST", "/v1/leases", aliceToken, "{\"vms\":1,\"image\":\"\xff\xfe\",\"duration\":\"1h\"}", 400, "image", "not valid UTF-8"},
		{"10 MB body", "POST", "/v1/leases", aliceToken, big, 413, "", "1 MiB"},
		{"negative vms (service's check)", "POST", "/v1/leases", aliceToken, `{"vms":-1,"duration":"1h"}`, 400, "vms", "vms: must be positive"},
		{"external lease by a user", "POST", "/v1/leases", aliceToken, `{"vms":1,"duration":"1h","origin":"external"}`, 403, "", "forbidden"},
		{"bad id", "GET", "/v1/leases/abc", aliceToken, "", 400, "id", "not a lease id"},
		{"negative id", "DELETE", "/v1/leases/-1", aliceToken, "", 400, "id", ""},
		{"unknown lease", "GET", "/v1/leases/999", aliceToken, "", 404, "", "lease 999: not found"},
		{"another user's lease", "GET", "/v1/leases/2", aliceToken, "", 404, "", "not found"},
		{"cancel another user's lease", "POST", "/v1/leases/2/cancel", aliceToken, "", 404, "", "not found"},
		{"cancel a cancelled lease", "DELETE", "/v1/leases/3", aliceToken, "", 409, "", "conflict"},
		{"non-admin suspend", "POST", "/v1/leases/1/suspend", aliceToken, "", 403, "", "admin role"},
		{"non-admin migrate", "POST", "/v1/leases/1/migrate", aliceToken, "", 403, "", "admin role"},
		{"non-admin host off", "POST", "/v1/hosts/h1/off", aliceToken, "", 403, "", "admin role"},
		{"unknown lease action", "POST", "/v1/leases/1/explode", adminToken, "", 404, "", "no such lease action"},
		{"unknown host action", "POST", "/v1/hosts/h1/reboot", adminToken, "", 404, "", "no such host action"},
		{"unknown host", "GET", "/v1/hosts/h9", aliceToken, "", 404, "", "host h9: not found"},
		{"unknown route", "GET", "/v1/nope", aliceToken, "", 404, "", "no such route"},
		{"wrong method", "PUT", "/v1/leases", aliceToken, "", 405, "", "allowed: GET, HEAD, POST"},
		{"wrong method on an action", "GET", "/v1/leases/1/suspend", aliceToken, "", 405, "", "allowed: POST"},
		{"unknown query parameter", "GET", "/v1/leases?colour=red", aliceToken, "", 400, "colour", "unknown query parameter"},
		{"query parameter twice", "GET", "/v1/leases?state=a&state=b", aliceToken, "", 400, "state", "given 2 times"},
		{"bad schedule from", "GET", "/v1/schedule?from=yesterday", aliceToken, "", 400, "from", "RFC 3339"},
		{"bad schedule duration", "GET", "/v1/schedule?to=%2B1x", aliceToken, "", 400, "to", "duration"},
		{"infinite days", "GET", "/v1/schedule?to=%2Binfd", aliceToken, "", 400, "to", "duration"},
		{"schedule to before from", "GET", "/v1/schedule?from=%2B1h&to=-1h", aliceToken, "", 400, "to", "not after"},
		{"no token", "GET", "/v1/leases", "", "", 401, "", "authentication required"},
		{"wrong token", "GET", "/v1/leases", "alice-wrong", "", 401, "", "invalid token"},
		{"no token on an unknown route", "GET", "/v1/nope", "", "", 401, "", ""},
		{"no token for metrics", "GET", "/metrics", "", "", 401, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := ts.do(t, tc.method, tc.path, tc.token, tc.body)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if tc.status < 400 {
				return
			}
			var e Error
			dec := json.NewDecoder(w.Body)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&e); err != nil {
				t.Fatalf("the error body is not an api.Error: %v", err)
			}
			if e.Error == "" || e.Field != tc.field || !strings.Contains(e.Error, tc.msg) {
				t.Errorf("body %+v, want field %q and a message with %q", e, tc.field, tc.msg)
			}
		})
	}
}

func TestAuthHeaderChecks(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	for _, h := range []string{"Basic YWxpY2U6cHc=", "Bearer", "Bearer  ", aliceToken} {
		r := httptest.NewRequest("GET", "/v1/leases", nil)
		r.Header.Set("Authorization", h)
		w := httptest.NewRecorder()
		ts.Handler().ServeHTTP(w, r)
		if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: %d %q", h, w.Code, w.Header().Get("WWW-Authenticate"))
		}
	}
	// The scheme is case-insensitive.
	r := httptest.NewRequest("GET", "/v1/leases", nil)
	r.Header.Set("Authorization", "bearer "+aliceToken)
	w := httptest.NewRecorder()
	ts.Handler().ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Errorf("lower-case bearer: %d %s", w.Code, w.Body)
	}
}

func TestAdminChecksBeforeTheService(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	ts.create(t, aliceToken, `{"vms":1,"duration":"1h"}`)
	before := len(ts.svc.called())
	for _, p := range []string{"/v1/leases/1/suspend", "/v1/leases/1/resume", "/v1/leases/1/migrate",
		"/v1/hosts/h1/enable", "/v1/hosts/h1/disable", "/v1/hosts/h1/on", "/v1/hosts/h1/off"} {
		if w := ts.do(t, "POST", p, aliceToken, ""); w.Code != http.StatusForbidden {
			t.Errorf("%s: %d", p, w.Code)
		}
	}
	if got := ts.svc.called(); len(got) != before {
		t.Errorf("the service was called for refused requests: %v", got[before:])
	}
	// The owner may cancel by POST; the admin may suspend.
	if w := ts.do(t, "POST", "/v1/leases/1/cancel", aliceToken, ""); w.Code != http.StatusOK {
		t.Errorf("owner cancel: %d %s", w.Code, w.Body)
	}
	id := ts.create(t, aliceToken, `{"vms":1,"duration":"1h"}`)
	w := ts.do(t, "POST", "/v1/leases/"+itoa(id)+"/suspend", adminToken, "")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"state":"suspending"`) {
		t.Errorf("admin suspend: %d %s", w.Code, w.Body)
	}
	if c := ts.svc.caller(); c.User != "root-ops" || !c.Admin || c.UID != -1 {
		t.Errorf("caller %+v", c)
	}
}

func TestCreateAnswers201WithLocation(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	w := ts.do(t, "POST", "/v1/leases", gatewayToken, `{"vms":2,"duration":"30m","origin":"external"}`)
	if w.Code != http.StatusCreated || w.Header().Get("Location") != "/v1/leases/1" {
		t.Fatalf("%d %q %s", w.Code, w.Header().Get("Location"), w.Body)
	}
	if c := ts.svc.caller(); c.User != "gateway" || !c.External || c.Admin {
		t.Errorf("caller %+v", c)
	}
	// A rejected lease is a successful call too.
	w = ts.do(t, "POST", "/v1/leases", aliceToken, `{"vms":9,"duration":"30m"}`)
	if w.Code != http.StatusCreated || !strings.Contains(w.Body.String(), `"state":"rejected"`) {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

func TestEmptyListsAreArrays(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	if w := ts.do(t, "GET", "/v1/leases", aliceToken, ""); strings.TrimSpace(w.Body.String()) != "[]" {
		t.Errorf("got %q", w.Body)
	}
}

func TestScheduleBounds(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	now := ts.svc.now
	cases := []struct {
		name, query string
		from, to    time.Time
	}{
		{"defaults are the service's", "", time.Time{}, time.Time{}},
		{"relative to the daemon's clock", "?from=-1h&to=%2B2h", now.Add(-time.Hour), now.Add(2 * time.Hour)},
		{"now", "?from=now", now, time.Time{}},
		{"days", "?from=-1.5d&to=%2B2d", now.Add(-36 * time.Hour), now.Add(48 * time.Hour)},
		{"RFC 3339", "?from=2030-01-01T00:00:00Z&to=2030-01-03T00:00:00%2B01:00",
			time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 1, 2, 23, 0, 0, 0, time.UTC)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if w := ts.do(t, "GET", "/v1/schedule"+tc.query, aliceToken, ""); w.Code != http.StatusOK {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			ts.svc.mu.Lock()
			from, to := ts.svc.from, ts.svc.to
			ts.svc.mu.Unlock()
			if !from.Equal(tc.from) || !to.Equal(tc.to) {
				t.Errorf("service got %v .. %v, want %v .. %v", from, to, tc.from, tc.to)
			}
		})
	}
}

func TestPanicAndInternalErrorsAreContained(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	for _, name := range []string{"panic", "internal"} {
		w := ts.do(t, "POST", "/v1/leases", aliceToken, `{"name":"`+name+`","vms":1,"duration":"1h"}`)
		if w.Code != http.StatusInternalServerError {
			t.Fatalf("%s: %d %s", name, w.Code, w.Body)
		}
		if strings.Contains(w.Body.String(), "panics on purpose") || strings.Contains(w.Body.String(), "/var/lib/bora") {
			t.Errorf("%s: the answer shows the internal error: %s", name, w.Body)
		}
	}
	var sawPanic, sawInternal bool
	for _, e := range ts.logs.AllEntries() {
		sawPanic = sawPanic || (e.Message == "panic in api handler" && e.Level == logrus.ErrorLevel && e.Data["stack"] != nil)
		sawInternal = sawInternal || (e.Message == "api request failed" && strings.Contains(e.Data["error"].(error).Error(), "on fire"))
	}
	if !sawPanic || !sawInternal {
		t.Errorf("log lines: panic %v, internal %v", sawPanic, sawInternal)
	}
	// The server still answers.
	if w := ts.do(t, "GET", "/v1/leases", aliceToken, ""); w.Code != http.StatusOK {
		t.Errorf("after the panic: %d", w.Code)
	}
}

// TestNotApplied: an operation the daemon threw away after a panic is a
// 500 whose answer says it was not applied (and not the panic itself),
// the real error logged.
func TestNotApplied(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	w := ts.do(t, "POST", "/v1/leases", aliceToken, `{"name":"not-applied","vms":1,"duration":"1h"}`)
	var e Error
	if w.Code != http.StatusInternalServerError || json.Unmarshal(w.Body.Bytes(), &e) != nil ||
		e.Error != "internal error: the operation failed and was not applied (see the daemon's log)" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	logged := false
	for _, en := range ts.logs.AllEntries() {
		logged = logged || (en.Message == "api request failed" && strings.Contains(en.Data["error"].(error).Error(), "runtime error in the scheduler"))
	}
	if !logged {
		t.Error("the real error is not logged")
	}
}

func TestHealth(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	w := ts.do(t, "GET", "/healthz", "", "")
	if w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != `{"status":"ok"}` {
		t.Errorf("healthy: %d %s", w.Code, w.Body)
	}
	ts.svc.setUnhealthy(ErrUnavailable)
	w = ts.do(t, "GET", "/healthz", "", "")
	var e Error
	if w.Code != http.StatusServiceUnavailable || json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Error == "" {
		t.Errorf("unhealthy: %d %s", w.Code, w.Body)
	}
}

func TestMetricsCountRequests(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	ts.create(t, aliceToken, `{"vms":1,"duration":"1h"}`)
	ts.do(t, "GET", "/v1/leases/7", aliceToken, "")
	ts.do(t, "GET", "/v1/leases/7", aliceToken, "")
	ts.do(t, "GET", "/nowhere", aliceToken, "")
	w := ts.do(t, "GET", "/metrics", aliceToken, "")
	if w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	for _, want := range []string{
		`bora_api_requests_total{code="201",route="POST /v1/leases"} 1`,
		`bora_api_requests_total{code="404",route="GET /v1/leases/{id}"} 2`,
		`bora_api_requests_total{code="404",route="unmatched"} 1`,
		`bora_api_request_duration_seconds_count{route="POST /v1/leases"} 1`,
	} {
		if !strings.Contains(w.Body.String(), want) {
			t.Errorf("no %q in\n%s", want, w.Body)
		}
	}
}

func TestNewServerChecksTheConfig(t *testing.T) {
	cases := []struct {
		name string
		cfg  ServerConfig
	}{
		{"TCP without a certificate", ServerConfig{TCP: "127.0.0.1:0"}},
		{"unreadable certificate", ServerConfig{TCP: "127.0.0.1:0", TLSCert: "/nonexistent.pem", TLSKey: "/nonexistent.key"}},
		{"empty token", ServerConfig{Tokens: []Token{{User: "x"}}}},
		{"token without a user", ServerConfig{Tokens: []Token{{Token: "abc"}}}},
		{"duplicate token", ServerConfig{Tokens: []Token{{Token: "abc", User: "x"}, {Token: "abc", User: "y"}}}},
		{"negative max body", ServerConfig{MaxBody: -1}},
		{"unknown group", ServerConfig{SocketGroup: "no-such-group-bora"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewServer(tc.cfg, newFakeService(), nil, nil); err == nil {
				t.Error("no error")
			}
		})
	}
	reg := prometheus.NewRegistry()
	if _, err := NewServer(ServerConfig{}, newFakeService(), reg, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := NewServer(ServerConfig{}, newFakeService(), reg, nil); err == nil {
		t.Error("a second server in the same registry: no error")
	}
}

func itoa(id uint64) string { return strconv.FormatUint(id, 10) }

// TestContentType: a request with a body must say it is JSON (415 naming
// the header otherwise); parameters such as a charset are fine, and
// requests without a body need no Content-Type.
func TestContentType(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	body := `{"vms":1,"duration":"1h"}`
	cases := []struct {
		ct     string
		status int
		msg    string
	}{
		{"", 415, "Content-Type header missing"},
		{"text/plain", 415, `Content-Type \"text/plain\"`},
		{"application/x-www-form-urlencoded", 415, "application/json"},
		{"application/jsonp", 415, "application/json"},
		{"application/json", 201, ""},
		{"Application/JSON; charset=utf-8", 201, ""},
	}
	for _, tc := range cases {
		t.Run(tc.ct, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/v1/leases", strings.NewReader(body))
			r.Header.Set("Authorization", "Bearer "+aliceToken)
			if tc.ct != "" {
				r.Header.Set("Content-Type", tc.ct)
			}
			w := httptest.NewRecorder()
			ts.Handler().ServeHTTP(w, r)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.msg) {
				t.Fatalf("%d %s; want %d with %q", w.Code, w.Body, tc.status, tc.msg)
			}
		})
	}
	// A POST without a body (an action) needs no Content-Type.
	if w := ts.do(t, "POST", "/v1/leases/1/cancel", aliceToken, ""); w.Code != http.StatusOK {
		t.Fatalf("cancel without a body: %d %s", w.Code, w.Body)
	}
}

// TestScheduleClamped: bounds outside the times the scheduler holds are
// clamped, and the answer says which and why; an ordinary window is not.
func TestScheduleClamped(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	epoch := time.Unix(0, 0).UTC()
	last := time.Date(2262, 4, 11, 23, 47, 16, 0, time.UTC) // MaxInt64 ns after 1970, whole seconds
	cases := []struct {
		name, query        string
		from, to           time.Time // what the service gets
		clampFrom, clampTo *time.Time
		reason             string
	}{
		{"year 1", "?from=0001-01-01T00:00:00Z", epoch, time.Time{}, &epoch, nil, "before the scheduler's epoch"},
		{"1969", "?from=1969-12-31T23:59:59Z&to=2030-01-01T00:00:00Z", epoch, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), &epoch, nil, "1969-12-31T23:59:59Z"},
		{"year 9999", "?to=9999-12-31T00:00:00Z", time.Time{}, last, nil, &last, "after 2262-04-11T23:47:16Z"},
		{"both", "?from=0001-01-01T00:00:00Z&to=9999-12-31T00:00:00Z", epoch, last, &epoch, &last, "; to 9999"},
		{"ordinary", "?from=-1h", ts.svc.now.Add(-time.Hour), time.Time{}, nil, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := ts.do(t, "GET", "/v1/schedule"+tc.query, aliceToken, "")
			if w.Code != http.StatusOK {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			var sc Schedule
			if err := json.Unmarshal(w.Body.Bytes(), &sc); err != nil {
				t.Fatal(err)
			}
			ts.svc.mu.Lock()
			from, to := ts.svc.from, ts.svc.to
			ts.svc.mu.Unlock()
			if !from.Equal(tc.from) || !to.Equal(tc.to) {
				t.Errorf("service got %v .. %v, want %v .. %v", from, to, tc.from, tc.to)
			}
			c := sc.Clamped
			if tc.reason == "" {
				if c != nil {
					t.Errorf("clamped %+v, want nothing", c)
				}
				return
			}
			if c == nil || !strings.Contains(c.Reason, tc.reason) || !sameTime(c.From, tc.clampFrom) || !sameTime(c.To, tc.clampTo) {
				t.Errorf("clamped %+v, want from %v to %v and a reason with %q", c, tc.clampFrom, tc.clampTo, tc.reason)
			}
		})
	}
	for _, to := range []string{"1960-01-01T00:00:00Z", "0001-01-01T00:00:00Z"} {
		if w := ts.do(t, "GET", "/v1/schedule?from=1950-01-01T00:00:00Z&to="+to, aliceToken, ""); w.Code != 400 ||
			!strings.Contains(w.Body.String(), "to: "+to+" is before the scheduler's epoch") {
			t.Errorf("a window ending %s: %d %s", to, w.Code, w.Body)
		}
	}
}

func sameTime(a, b *time.Time) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }
