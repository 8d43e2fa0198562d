package api

import (
	"net/http"
	"strings"
	"testing"
)

// TestDryRunQuery: POST /v1/leases?dry_run= takes true/1 and false/0;
// anything else, or another parameter, is a 400 naming it; a service that
// answers no dry runs makes it a 501, and nothing is created either way.
func TestDryRunQuery(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	body := `{"vms": 1, "duration": "1h"}`
	for _, tc := range []struct {
		query string
		code  int
		msg   string
	}{
		{"?dry_run=maybe", http.StatusBadRequest, `dry_run: \"maybe\" is not true or false`},
		{"?dryrun=true", http.StatusBadRequest, "dryrun: unknown query parameter (known: dry_run)"},
		{"?dry_run=true", http.StatusNotImplemented, "this server does not answer dry runs"},
		{"?dry_run=1", http.StatusNotImplemented, "this server does not answer dry runs"},
	} {
		w := ts.do(t, "POST", "/v1/leases"+tc.query, aliceToken, body)
		if w.Code != tc.code || !strings.Contains(w.Body.String(), tc.msg) {
			t.Errorf("%s: %d %s, want %d with %q", tc.query, w.Code, w.Body, tc.code, tc.msg)
		}
	}
	if calls := ts.svc.called(); len(calls) != 0 {
		t.Errorf("the service was called: %v", calls)
	}
	if w := ts.do(t, "POST", "/v1/leases?dry_run=false", aliceToken, body); w.Code != http.StatusCreated {
		t.Errorf("dry_run=false: %d %s, want 201", w.Code, w.Body)
	}
}
