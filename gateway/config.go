package gateway

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/bora-sched/bora/dispatch"
	"github.com/bora-sched/bora/fielderr"
	"github.com/bora-sched/bora/yamlstrict"
)

// Config is the gateway's configuration file (examples/gateway.yaml):
//
//	listen: 127.0.0.1:8600  # TCP address of the gateway's API
//	tls_cert: gw.crt        # PEM certificate and key (required unless insecure_tcp)
//	tls_key: gw.key
//	insecure_tcp: false     # plain HTTP: tests only
//	store: gateway.db       # the lease map (bbolt)
//	log_level: info         # debug | info | warn | error
//	log_format: text        # text | json
//	policy: pap-rtdp        # one of dispatch.Policies
//	seed: 1                 # pap-rnd's random source
//	poll: 10s               # how often each cluster's /v1/stats is read
//	recompute: 5m           # how often the split is computed again
//	timeout: 5s             # bound of one request to a cluster
//	tokens: [{token: T, user: alice, admin: false}]
//	model: {external_rate: 0.01, external_vms: 1, external_run: 1h}
//	clusters:
//	  - {name: a, url: "https://a:8443", ca: a-ca.pem, token: T, speed: 1, cost: 0,
//	     hosts: 0, local_rate: 0, local_vms: 1, local_run: 1h}
type Config struct {
	Listen      string        `yaml:"listen"`
	TLSCert     string        `yaml:"tls_cert"`
	TLSKey      string        `yaml:"tls_key"`
	InsecureTCP bool          `yaml:"insecure_tcp"`
	Store       string        `yaml:"store"`
	LogLevel    string        `yaml:"log_level"`
	LogFormat   string        `yaml:"log_format"`
	Policy      string        `yaml:"policy"`
	Seed        uint64        `yaml:"seed"`
	Poll        time.Duration `yaml:"poll"`
	Recompute   time.Duration `yaml:"recompute"`
	Timeout     time.Duration `yaml:"timeout"`
	Tokens      []Token       `yaml:"tokens"`
	Model       Model         `yaml:"model"`
	Clusters    []Cluster     `yaml:"clusters"`
}

// Token is a bearer token of a gateway user. Every lease sent through
// the gateway is external, so a user needs no external flag; admin may
// see and act on every user's leases.
type Token struct {
	Token string `yaml:"token"`
	User  string `yaml:"user"`
	Admin bool   `yaml:"admin"`
}

// Model holds the gateway-wide fallbacks of the model's inputs
// (docs/models.md §6), used while the clusters' estimates are missing:
// the external rate Lambda (per second), and an external lease's mean
// VM count and run time.
type Model struct {
	ExternalRate float64       `yaml:"external_rate"`
	ExternalVMs  float64       `yaml:"external_vms"`
	ExternalRun  time.Duration `yaml:"external_run"`
}

// Cluster is one cluster behind the gateway: where it answers (URL, the
// CA that signed its certificate, an external token of it), its speed
// factor and cost, and the fallbacks of its local load. Hosts overrides
// the host count its stats give (0: the stats').
type Cluster struct {
	Name      string        `yaml:"name"`
	URL       string        `yaml:"url"`
	CA        string        `yaml:"ca"`
	Token     string        `yaml:"token"`
	Speed     float64       `yaml:"speed"`
	Cost      float64       `yaml:"cost"`
	Hosts     int           `yaml:"hosts"`
	LocalRate float64       `yaml:"local_rate"`
	LocalVMs  float64       `yaml:"local_vms"`
	LocalRun  time.Duration `yaml:"local_run"`
}

// Defaults of the keys left out.
const (
	DefaultPolicy    = dispatch.PolicyPAPRTDP
	DefaultPoll      = 10 * time.Second
	DefaultRecompute = 5 * time.Minute
	DefaultTimeout   = 5 * time.Second
)

// DefaultConfig is the configuration with nothing set.
func DefaultConfig() Config {
	return Config{
		LogLevel: "info", LogFormat: "text", Policy: string(DefaultPolicy), Seed: 1,
		Poll: DefaultPoll, Recompute: DefaultRecompute, Timeout: DefaultTimeout,
		Model: Model{ExternalRate: 0.01, ExternalVMs: 1, ExternalRun: time.Hour},
	}
}

// defaultCluster is a cluster's keys left out.
func defaultCluster() Cluster { return Cluster{Speed: 1, LocalVMs: 1, LocalRun: time.Hour} }

// Parse reads a configuration from YAML (name is used in the errors):
// unknown keys and keys written twice are refused with their line, and
// the values are validated (Validate).
func Parse(data []byte, name string) (Config, error) {
	c := DefaultConfig()
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		line, msg := yamlstrict.Syntax(err)
		return Config{}, configError{fmt.Errorf("%s: line %d: %s", name, line, msg)}
	}
	if len(root.Content) == 0 {
		return Config{}, configError{fmt.Errorf("%s: empty file", name)}
	}
	doc := root.Content[0]
	lines, err := yamlstrict.Lines(doc)
	if err != nil {
		return Config{}, configError{fmt.Errorf("%s: %w", name, err)}
	}
	if err := yamlstrict.Decode(doc, &c, ""); err != nil {
		return Config{}, configError{fmt.Errorf("%s: %w", name, err)}
	}
	// Each cluster's keys left out take defaultCluster's values.
	if err := c.decodeClusters(doc); err != nil {
		return Config{}, configError{fmt.Errorf("%s: %w", name, err)}
	}
	if err := c.Validate(); err != nil {
		var fe *fielderr.Error
		if errors.As(err, &fe) {
			// The line of the key, or of the nearest key above it written.
			for p := fe.Path; p != ""; p = parent(p) {
				if line, ok := lines[p]; ok {
					return Config{}, fmt.Errorf("%s: line %d: %w", name, line, err)
				}
			}
		}
		return Config{}, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// decodeClusters decodes the clusters list again over defaults.
func (c *Config) decodeClusters(doc *yaml.Node) error {
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value != "clusters" || doc.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		c.Clusters = nil
		for j, n := range doc.Content[i+1].Content {
			cl := defaultCluster()
			if err := yamlstrict.Decode(n, &cl, fmt.Sprintf("clusters[%d]", j)); err != nil {
				return err
			}
			c.Clusters = append(c.Clusters, cl)
		}
	}
	return nil
}

// configError is a refusal of a file that is not a fielderr.Error (a
// syntax error, a yamlstrict.Error with its line): it reads as err and
// wraps both err and ErrConfig.
type configError struct{ err error }

func (e configError) Error() string   { return e.err.Error() }
func (e configError) Unwrap() []error { return []error{e.err, ErrConfig} }

// Load reads and validates the configuration file at path.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, configError{err}
	}
	return Parse(data, path)
}

// Validate checks every key; the error is a *fielderr.Error naming the
// first bad key, wrapping ErrConfig.
func (c Config) Validate() error {
	bad := func(path, format string, args ...any) error {
		return fielderr.Wrap(ErrConfig, path, format, args...)
	}
	switch {
	case c.Listen == "":
		return bad("listen", "the gateway needs a TCP address to listen on (host:port)")
	case !validHostPort(c.Listen):
		return bad("listen", "%q is not host:port", c.Listen)
	case !c.InsecureTCP && (c.TLSCert == "" || c.TLSKey == ""):
		return bad("tls_cert", "a TLS certificate and key are required (tls_cert, tls_key), or insecure_tcp: true for tests")
	case c.Store == "":
		return bad("store", "the gateway needs a file for its lease map")
	case !oneOf(c.LogLevel, "debug", "info", "warn", "error"):
		return bad("log_level", "%q: want debug, info, warn or error", c.LogLevel)
	case !oneOf(c.LogFormat, "text", "json"):
		return bad("log_format", "%q: want text or json", c.LogFormat)
	case c.Poll <= 0:
		return bad("poll", "%v: want a positive period", c.Poll)
	case c.Recompute <= 0:
		return bad("recompute", "%v: want a positive period", c.Recompute)
	case c.Timeout <= 0:
		return bad("timeout", "%v: want a positive bound", c.Timeout)
	}
	if _, err := dispatch.Lookup(c.Policy); err != nil {
		return bad("policy", "%v", err)
	}
	if err := c.validateTokens(); err != nil {
		return err
	}
	if err := c.Model.validate(); err != nil {
		return err
	}
	if len(c.Clusters) == 0 {
		return bad("clusters", "the gateway needs at least one cluster")
	}
	seen := map[string]int{}
	for i, cl := range c.Clusters {
		p := fmt.Sprintf("clusters[%d]", i)
		if err := cl.validate(p); err != nil {
			return err
		}
		if j, ok := seen[cl.Name]; ok {
			return bad(p+".name", "%q is also clusters[%d]", cl.Name, j)
		}
		seen[cl.Name] = i
	}
	return nil
}

func (c Config) validateTokens() error {
	seen := map[string]bool{}
	for i, t := range c.Tokens {
		p := fmt.Sprintf("tokens[%d]", i)
		switch {
		case t.Token == "" || strings.ContainsAny(t.Token, " \t\r\n"):
			return fielderr.Wrap(ErrConfig, p+".token", "a token is a non-empty word without white space")
		case t.User == "":
			return fielderr.Wrap(ErrConfig, p+".user", "a token needs its user")
		case seen[t.Token]:
			return fielderr.Wrap(ErrConfig, p+".token", "the same token as an earlier one")
		}
		seen[t.Token] = true
	}
	if len(c.Tokens) == 0 {
		return fielderr.Wrap(ErrConfig, "tokens", "the gateway answers on TCP only: give its users' tokens")
	}
	return nil
}

func (m Model) validate() error {
	switch {
	case !finite(m.ExternalRate) || m.ExternalRate <= 0:
		return fielderr.Wrap(ErrConfig, "model.external_rate", "%v: want a positive rate (per second)", m.ExternalRate)
	case !finite(m.ExternalVMs) || m.ExternalVMs <= 0:
		return fielderr.Wrap(ErrConfig, "model.external_vms", "%v: want a positive mean VM count", m.ExternalVMs)
	case m.ExternalRun <= 0:
		return fielderr.Wrap(ErrConfig, "model.external_run", "%v: want a positive mean run time", m.ExternalRun)
	}
	return nil
}

func (cl Cluster) validate(p string) error {
	bad := func(key, format string, args ...any) error {
		return fielderr.Wrap(ErrConfig, p+"."+key, format, args...)
	}
	u, err := url.Parse(cl.URL)
	switch {
	case cl.Name == "":
		return bad("name", "a cluster needs a name")
	case strings.ContainsAny(cl.Name, " \t\r\n:/"):
		return bad("name", "%q: a name has no white space, ':' or '/'", cl.Name)
	case cl.URL == "":
		return bad("url", "cluster %q needs its API's URL (https://HOST:PORT)", cl.Name)
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return bad("url", "%q: want https://HOST:PORT", cl.URL)
	case cl.Token == "" || strings.ContainsAny(cl.Token, " \t\r\n"):
		return bad("token", "cluster %q needs an external token of its API (a word without white space)", cl.Name)
	case !finite(cl.Speed) || cl.Speed <= 0:
		return bad("speed", "%v: want a positive speed factor", cl.Speed)
	case !finite(cl.Cost) || cl.Cost < 0:
		return bad("cost", "%v: want a non-negative cost", cl.Cost)
	case cl.Hosts < 0:
		return bad("hosts", "%d: want 0 (from the cluster's stats) or more", cl.Hosts)
	case !finite(cl.LocalRate) || cl.LocalRate < 0:
		return bad("local_rate", "%v: want a non-negative rate (per second)", cl.LocalRate)
	case !finite(cl.LocalVMs) || cl.LocalVMs <= 0:
		return bad("local_vms", "%v: want a positive mean VM count", cl.LocalVMs)
	case cl.LocalRun <= 0:
		return bad("local_run", "%v: want a positive mean run time", cl.LocalRun)
	}
	return nil
}

// CheckFiles checks that the files the configuration names can be read:
// the TLS certificate and key, and each cluster's CA. The error is a
// *fielderr.Error naming the key, wrapping ErrConfig.
func (c Config) CheckFiles() error {
	files := []struct{ path, file string }{{"tls_cert", c.TLSCert}, {"tls_key", c.TLSKey}}
	for i, cl := range c.Clusters {
		files = append(files, struct{ path, file string }{fmt.Sprintf("clusters[%d].ca", i), cl.CA})
	}
	for _, f := range files {
		if f.file == "" {
			continue
		}
		if _, err := os.ReadFile(f.file); err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fielderr.Wrap(ErrConfig, f.path, "%s: %v", f.file, err)
		}
	}
	return nil
}

// parent is the path above p ("clusters[0]" for "clusters[0].url",
// "clusters" for "clusters[0]"), "" at the top.
func parent(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func oneOf(s string, vs ...string) bool {
	for _, v := range vs {
		if s == v {
			return true
		}
	}
	return false
}

func validHostPort(s string) bool {
	_, port, err := net.SplitHostPort(s)
	return err == nil && port != ""
}
