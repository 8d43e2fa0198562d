package gateway

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/fielderr"
)

const goodConfig = `listen: 127.0.0.1:8600
insecure_tcp: true
store: /tmp/gw.db
tokens: [{token: alice-token-0123456789, user: alice}]
clusters:
  - {name: a, url: "https://a:8443", token: ta}
  - {name: b, url: "https://b:8443", token: tb, speed: 2, local_rate: 0.5}
`

// TestParseGood: the keys left out take their defaults, a cluster's too.
func TestParseGood(t *testing.T) {
	c, err := Parse([]byte(goodConfig), "gw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Policy != "pap-rtdp" || c.Poll != 10*time.Second || c.Recompute != 5*time.Minute || c.Model.ExternalRun != time.Hour {
		t.Fatalf("defaults: %+v", c)
	}
	a, b := c.Clusters[0], c.Clusters[1]
	if a.Speed != 1 || a.LocalVMs != 1 || a.LocalRun != time.Hour || b.Speed != 2 || b.LocalRate != 0.5 || b.LocalRun != time.Hour {
		t.Fatalf("clusters: %+v", c.Clusters)
	}
}

// TestExampleConfig: examples/gateway.yaml parses and validates (its
// files are not on this machine: CheckFiles names the first).
func TestExampleConfig(t *testing.T) {
	c, err := Load(filepath.Join("..", "examples", "gateway.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Clusters) != 3 || c.Clusters[2].Hosts != 8 || c.Policy != "pap-rtdp" {
		t.Fatalf("example: %+v", c)
	}
	var fe *fielderr.Error
	if err := c.CheckFiles(); !errors.As(err, &fe) || fe.Path != "tls_cert" {
		t.Fatalf("CheckFiles: %v", err)
	}
}

// TestParseBad: each bad file is refused naming the key.
func TestParseBad(t *testing.T) {
	cases := []struct {
		name, edit, want string
	}{
		{"unknown key", "colour: red\n", "colour"},
		{"unknown cluster key", "", "clusters[0].colour"},
		{"no listen", "listen: \"\"\n", "listen: the gateway needs a TCP address"},
		{"bad listen", "listen: nowhere\n", "listen: \"nowhere\" is not host:port"},
		{"policy", "policy: pap\n", "policy: \"pap\" (known: bcf, bcf-rnd, earliest-finish, lrf, lrf-rnd, pap-rnd, pap-rtdp, rr)"},
		{"poll", "poll: -1s\n", "poll: -1s: want a positive period"},
		{"recompute", "recompute: 0s\n", "recompute: 0s"},
		{"log level", "log_level: loud\n", "log_level"},
		{"model rate", "model: {external_rate: 0}\n", "model.external_rate"},
		{"model run", "model: {external_run: -1h}\n", "model.external_run"},
		{"no tls", "insecure_tcp: false\n", "tls_cert: a TLS certificate and key are required"},
		{"no tokens", "tokens: []\n", "tokens: the gateway answers on TCP only"},
		{"token without user", "tokens: [{token: abc}]\n", "tokens[0].user"},
		{"no clusters", "clusters: []\n", "clusters: the gateway needs at least one cluster"},
		{"duplicate name", "clusters: [{name: a, url: \"https://a:1\", token: t}, {name: a, url: \"https://b:1\", token: t}]\n", "clusters[1].name: \"a\" is also clusters[0]"},
		{"bad url", "clusters: [{name: a, url: \"ftp://a\", token: t}]\n", "clusters[0].url: \"ftp://a\": want https://HOST:PORT"},
		{"no token", "clusters: [{name: a, url: \"https://a:1\"}]\n", "clusters[0].token"},
		{"speed", "clusters: [{name: a, url: \"https://a:1\", token: t, speed: 0}]\n", "line 5: clusters[0].speed: 0: want a positive speed factor"},
		{"cost", "clusters: [{name: a, url: \"https://a:1\", token: t, cost: -1}]\n", "clusters[0].cost"},
		{"hosts", "clusters: [{name: a, url: \"https://a:1\", token: t, hosts: -2}]\n", "clusters[0].hosts"},
		{"local run", "clusters: [{name: a, url: \"https://a:1\", token: t, local_run: 0s}]\n", "clusters[0].local_run"},
		{"name with a slash", "clusters: [{name: a/b, url: \"https://a:1\", token: t}]\n", "clusters[0].name"},
		{"key twice", "poll: 1s\npoll: 2s\n", "poll"},
		{"syntax", "clusters: [\n", "line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := goodConfig
			if c.name == "unknown cluster key" {
				text = strings.Replace(text, "token: ta}", "token: ta, colour: red}", 1)
			} else {
				text = removeKeys(text, c.edit) + c.edit
			}
			_, err := Parse([]byte(text), "gw.yaml")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v does not wrap ErrConfig", err)
			}
		})
	}
}

// removeKeys drops goodConfig's top-level keys that edit sets again (the
// clusters' lines with clusters).
func removeKeys(text, edit string) string {
	if edit == "poll: 1s\npoll: 2s\n" || !strings.Contains(edit, ":") {
		return text
	}
	key := edit[:strings.Index(edit, ":")]
	var out []string
	skip := false
	for _, line := range strings.Split(text, "\n") {
		top := line != "" && line[0] != ' '
		if top {
			skip = strings.HasPrefix(line, key+":")
		}
		if !skip {
			out = append(out, line)
		}
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n") + "\n"
}

// TestNewChecksFiles: a CA that cannot be read is refused by New, naming
// the cluster's key.
func TestNewChecksFiles(t *testing.T) {
	dir := t.TempDir()
	c, err := Parse([]byte(goodConfig), "gw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.Store = filepath.Join(dir, "gw.db")
	c.Clusters[1].CA = filepath.Join(dir, "missing.pem")
	if _, err := New(Options{Config: c}); err == nil || !strings.Contains(err.Error(), "clusters[1].ca: ") {
		t.Fatalf("missing CA: %v", err)
	}
	if err := os.WriteFile(c.Clusters[1].CA, []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Config: c}); err == nil || !strings.Contains(err.Error(), "clusters[1].ca: cluster b") {
		t.Fatalf("a CA file without PEM: %v", err)
	}
}
