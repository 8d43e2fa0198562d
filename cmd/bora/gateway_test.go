package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGatewayCheck: bora gateway check accepts a good file and refuses a
// bad one with exit 2, naming the key and its line; serve needs --config.
func TestGatewayCheck(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	writeFile(t, ca, "-----BEGIN CERTIFICATE-----\n")
	good := `listen: 127.0.0.1:8600
insecure_tcp: true
store: ` + filepath.Join(dir, "gw.db") + `
tokens: [{token: alice-token-0123456789, user: alice}]
clusters:
  - {name: a, url: "https://a:8443", token: ta, ca: ` + ca + `}
`
	cases := []struct {
		name, body string
		code       int
		want       string
	}{
		{"good", good, exitOK, "ok (policy pap-rtdp, 1 clusters, listen 127.0.0.1:8600"},
		{"bad speed", strings.Replace(good, "token: ta,", "token: ta, speed: -1,", 1), exitUsage, "line 6: clusters[0].speed: -1: want a positive speed factor"},
		{"missing CA", strings.Replace(good, ca, filepath.Join(dir, "none.pem"), 1), exitUsage, "clusters[0].ca: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, "gw.yaml")
			writeFile(t, file, c.body)
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"gateway", "check", file}, nil, &out, &errOut, os.Getenv)
			if code != c.code || !strings.Contains(out.String()+errOut.String(), c.want) {
				t.Fatalf("exit %d, %s%s; want %d and %q", code, out.String(), errOut.String(), c.code, c.want)
			}
		})
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"gateway", "serve"}, nil, &out, &errOut, os.Getenv); code != exitUsage ||
		!strings.Contains(errOut.String(), "--config is required") {
		t.Fatalf("serve without --config: exit %d, %s", code, errOut.String())
	}
}
