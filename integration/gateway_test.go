package integration

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bora-sched/bora/dispatch"
)

// The gateway's test: three real borad daemons (fake driver, a clock 60
// times the wall clock, TCP with TLS and an external token each) behind
// the real gateway (bora gateway serve), driven through bora --server.

const (
	gwPoll       = time.Second
	gwUserToken  = "alice-gateway-token-0123456789"
	gwExtToken   = "gateway-external-token-0123456789"
	gwLeaseCount = 300
)

// pki is a CA and a server certificate for 127.0.0.1 it signed, as PEM
// files in dir.
type pki struct{ ca, cert, key string }

func newPKI(t *testing.T, dir string) pki {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "bora test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	p := pki{ca: filepath.Join(dir, "ca.pem"), cert: filepath.Join(dir, "server.crt"), key: filepath.Join(dir, "server.key")}
	for file, block := range map[string]*pem.Block{p.ca: {Type: "CERTIFICATE", Bytes: caDER},
		p.cert: {Type: "CERTIFICATE", Bytes: der}, p.key: {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// freePort is a TCP port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// gatewayProc is the gateway process.
type gatewayProc struct {
	t      *testing.T
	dir    string
	config string
	url    string
	ca     string
	cmd    *exec.Cmd
}

func (g *gatewayProc) start() {
	g.t.Helper()
	log, err := os.OpenFile(filepath.Join(g.dir, "gateway.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		g.t.Fatal(err)
	}
	defer log.Close()
	g.cmd = exec.Command(bora(g.t), "gateway", "serve", "--config", g.config)
	g.cmd.Stdout, g.cmd.Stderr = log, log
	if err := g.cmd.Start(); err != nil {
		g.t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, _, code := g.bora("stats"); code == 0 {
			return
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(filepath.Join(g.dir, "gateway.log"))
			g.t.Fatalf("the gateway did not answer:\n%s", tail(string(data), 30))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// bora runs the CLI against the gateway, as alice.
func (g *gatewayProc) bora(args ...string) (string, string, int) {
	g.t.Helper()
	return run(g.t, append([]string{"--server", g.url, "--token", gwUserToken, "--ca-cert", g.ca}, args...)...)
}

// gwLease is a lease as the gateway shows it.
type gwLease struct {
	ID      uint64 `json:"id"`
	State   string `json:"state"`
	Reason  string `json:"reason"`
	Cluster string `json:"cluster"`
	History []struct {
		State  string `json:"state"`
		Reason string `json:"reason"`
		Detail string `json:"detail"`
	} `json:"history"`
}

// tried is the clusters the gateway sent the lease to, in order, with
// the outcome of each ("a:forwarded", "c:refused:admission-limit").
func (l gwLease) tried() []string {
	var out []string
	for _, e := range l.History {
		if e.State != "forwarded" && e.State != "refused" && e.State != "unreachable" {
			break
		}
		name := strings.TrimSuffix(strings.Fields(strings.TrimPrefix(e.Detail, "cluster "))[0], ":")
		name = strings.TrimSuffix(name, ",")
		out = append(out, strings.TrimSuffix(name+":"+e.State+":"+e.Reason, ":"))
	}
	return out
}

// mapping is where the gateway says the lease is: its forwarded event
// ("cluster b, its lease 12").
func (l gwLease) mapping() string {
	for _, e := range l.History {
		if e.State == "forwarded" {
			return e.Detail
		}
	}
	return ""
}

func (g *gatewayProc) list() []gwLease {
	g.t.Helper()
	out, errOut, code := g.bora("lease", "list", "-o", "json")
	if code != 0 {
		g.t.Fatalf("lease list: exit %d: %s", code, errOut)
	}
	var ls []gwLease
	if err := json.Unmarshal([]byte(out), &ls); err != nil {
		g.t.Fatal(err)
	}
	return ls
}

// submit creates n external leases through the gateway (4 at a time).
func (g *gatewayProc) submit(n int) []gwLease {
	g.t.Helper()
	out := make([]gwLease, n)
	var wg sync.WaitGroup
	jobs := make(chan int)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				stdout, errOut, code := g.bora("lease", "create", "--vms", "1", "--duration", "10m", "-o", "json")
				if code != 0 {
					g.t.Errorf("lease create: exit %d: %s%s", code, errOut, stdout)
					continue
				}
				if err := json.Unmarshal([]byte(stdout), &out[i]); err != nil {
					g.t.Errorf("lease create: %v: %s", err, stdout)
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if g.t.Failed() {
		g.t.FailNow()
	}
	return out
}

// TestGatewayFederation: 300 external leases through the gateway
// (pap-rnd) over clusters a (4 hosts), b (2) and c (3, admission
// one-at-a-time). It checks that the first choices follow PAP's shares,
// that c's refusals are placed elsewhere with the reason in the history,
// that b killed is out of the split within a poll and its leases show
// unknown, then known again once it is back, and that the gateway killed
// with SIGKILL comes back with every mapping.
func TestGatewayFederation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three borad and the gateway: not in -short runs")
	}
	dir := t.TempDir()
	p := newPKI(t, dir)
	hosts := map[string]int{"a": 4, "b": 2, "c": 3}
	names := []string{"a", "b", "c"}
	clusters := map[string]*cluster{}
	var gwClusters strings.Builder
	for _, name := range names {
		port := freePort(t)
		apiKeys := fmt.Sprintf(`tcp: "127.0.0.1:%d", tls_cert: %s, tls_key: %s, tokens: [{token: %s, user: gateway, external: true}]`,
			port, p.cert, p.key, gwExtToken)
		extra := ""
		if name == "c" {
			// c refuses an external lease while it holds one; its
			// estimates stay warming (24 h of history, 100000 ends), so
			// the gateway uses the configuration's fallbacks for all.
			extra = "admission: {policy: one-at-a-time, warmup: 24h, min_samples: 100000}\n"
		}
		c := newClusterAPI(t, hosts[name], 60, apiKeys, extra)
		c.start()
		clusters[name] = c
		fmt.Fprintf(&gwClusters, "  - {name: %s, url: \"https://127.0.0.1:%d\", ca: %s, token: %s}\n", name, port, p.ca, gwExtToken)
	}
	gwPort := freePort(t)
	gw := &gatewayProc{t: t, dir: dir, config: filepath.Join(dir, "gateway.yaml"), url: fmt.Sprintf("https://127.0.0.1:%d", gwPort), ca: p.ca}
	cfg := fmt.Sprintf(`listen: 127.0.0.1:%d
tls_cert: %s
tls_key: %s
store: %s
log_level: debug
policy: pap-rnd
seed: 7
poll: %s
recompute: 2s
timeout: 2s
tokens: [{token: %s, user: alice}]
model: {external_rate: 0.008, external_vms: 1, external_run: 10m}
clusters:
%s`, gwPort, p.cert, p.key, filepath.Join(dir, "gateway.db"), gwPoll, gwUserToken, gwClusters.String())
	if err := os.WriteFile(gw.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if gw.cmd != nil {
			_ = gw.cmd.Process.Signal(syscall.SIGTERM)
			_ = gw.cmd.Wait()
		}
		if t.Failed() {
			data, _ := os.ReadFile(filepath.Join(dir, "gateway.log"))
			t.Logf("gateway log:\n%s", tail(string(data), 60))
		}
	})
	gw.start()

	// 1. The split. PAP's shares from the same inputs, worked out here:
	// theta_j = external_vms x external_run / (hosts_j x speed 1) =
	// 600/4, 600/2, 600/3 s; omega_j = 1.25 theta_j^2 (cv 0.5); no local
	// load; Lambda = 0.008/s (the fallback: no cluster has estimates).
	var in []dispatch.Cluster
	for _, name := range names {
		th := 600 / float64(hosts[name])
		in = append(in, dispatch.Cluster{Name: name, Hosts: hosts[name], Power: float64(hosts[name]), Theta: th, Omega: 1.25 * th * th})
	}
	rates, err := dispatch.PAP(in, 0.008)
	if err != nil {
		t.Fatal(err)
	}
	leases := gw.submit(gwLeaseCount)
	first := map[string]int{}
	retried := 0
	for _, l := range leases {
		tr := l.tried()
		if len(tr) == 0 {
			t.Fatalf("lease %d has no try in its history: %+v", l.ID, l)
		}
		first[strings.Split(tr[0], ":")[0]]++
		// 4. A lease c's admission refused is placed on another cluster,
		// with the refusal in its history.
		if tr[0] == "c:refused:admission-limit" {
			if l.Cluster == "c" || l.Cluster == "" || l.State == "rejected" || !strings.HasSuffix(tr[len(tr)-1], ":forwarded") {
				t.Errorf("lease %d refused by c: cluster %q, state %s, tries %v", l.ID, l.Cluster, l.State, tr)
			}
			retried++
		}
	}
	for j, name := range names {
		share := rates[j] / 0.008
		mean, sd := gwLeaseCount*share, math.Sqrt(gwLeaseCount*share*(1-share))
		t.Logf("cluster %s: first choice of %d leases, PAP's share %.3f (%.1f +- %.1f)", name, first[name], share, mean, sd)
		if math.Abs(float64(first[name])-mean) > 4*sd {
			t.Errorf("cluster %s was the first choice of %d leases, want %.1f within 4 sd (%.1f)", name, first[name], mean, 4*sd)
		}
	}
	if retried == 0 {
		t.Fatal("c's admission refused no lease")
	}
	// bora lease show through the gateway: the cluster's view, the
	// cluster's name, and the refusal in the history.
	for _, l := range leases {
		if tr := l.tried(); tr[0] == "c:refused:admission-limit" {
			out, errOut, code := gw.bora("lease", "show", fmt.Sprint(l.ID))
			if code != 0 || !strings.Contains(out, "Cluster:") || !strings.Contains(out, "refused") ||
				!strings.Contains(out, "admission-limit") || !strings.Contains(out, "cluster c: ") {
				t.Fatalf("lease show %d: exit %d: %s%s", l.ID, code, out, errOut)
			}
			t.Logf("bora lease show %d through the gateway:\n%s", l.ID, out)
			break
		}
	}
	t.Logf("%d leases refused by c's admission and placed elsewhere", retried)

	// 2. b killed: within a poll it is out of the split; its leases show
	// unknown; after its restart they are known again.
	onB := map[uint64]string{}
	for _, l := range gw.list() {
		if l.Cluster == "b" {
			onB[l.ID] = l.mapping()
		}
	}
	if len(onB) == 0 {
		t.Fatal("no lease on b")
	}
	b := clusters["b"]
	_ = b.cmd.Process.Kill()
	_ = b.cmd.Wait()
	b.cmd = nil
	b.log.Close()
	time.Sleep(gwPoll + gwPoll/2) // the next poll, which finds b refusing connections, and a margin
	for _, l := range gw.submit(30) {
		for _, tr := range l.tried() {
			if strings.HasPrefix(tr, "b:") {
				t.Errorf("lease %d tried b after b was killed and polled: %v", l.ID, l.tried())
			}
		}
	}
	for _, l := range gw.list() {
		if _, ok := onB[l.ID]; ok && (l.State != "unknown" || l.Reason != "cluster-down" || l.Cluster != "b") {
			t.Errorf("lease %d on b while b is down: state %s, reason %s, cluster %s", l.ID, l.State, l.Reason, l.Cluster)
		}
	}
	b.start()
	deadline := time.Now().Add(30 * time.Second)
	for {
		unknown := 0
		for _, l := range gw.list() {
			if _, ok := onB[l.ID]; ok && (l.State == "unknown" || l.mapping() != onB[l.ID]) {
				unknown++
			}
		}
		if unknown == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of b's %d leases still unknown 30 s after its restart", unknown, len(onB))
		}
		time.Sleep(gwPoll / 2)
	}

	// 3. The gateway killed with SIGKILL in the middle of a burst of
	// creates loses no mapping: every lease listed before and every
	// create answered before the kill is there after the restart, on the
	// same cluster under the same cluster lease id.
	before := map[uint64]string{}
	for _, l := range gw.list() {
		before[l.ID] = l.Cluster + "|" + l.mapping()
	}
	if len(before) != gwLeaseCount+30 {
		t.Fatalf("the gateway lists %d leases, want %d", len(before), gwLeaseCount+30)
	}
	acked := gw.burstKilled(60, 20)
	for _, l := range acked {
		before[l.ID] = l.Cluster + "|" + l.mapping()
	}
	gw.start()
	after := map[uint64]string{}
	for _, l := range gw.list() {
		after[l.ID] = l.Cluster + "|" + l.mapping()
	}
	for id, want := range before {
		if got, ok := after[id]; !ok || got != want {
			t.Errorf("lease %d after kill -9: %q (listed %v), before %q", id, got, ok, want)
		}
	}
	t.Logf("%d leases mapped before the kill (%d of them answered during the burst), %d after the restart",
		len(before), len(acked), len(after))
}

// burstKilled sends n creates (8 at a time) and kills the gateway with
// SIGKILL once killAt were answered; it returns the answered ones.
func (g *gatewayProc) burstKilled(n, killAt int) []gwLease {
	g.t.Helper()
	var mu sync.Mutex
	var acked []gwLease
	var once sync.Once
	var wg sync.WaitGroup
	jobs := make(chan int)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				stdout, _, code := run(g.t, "--server", g.url, "--token", gwUserToken, "--ca-cert", g.ca,
					"lease", "create", "--vms", "1", "--duration", "10m", "-o", "json")
				if code != 0 {
					continue // not answered: the gateway was killed
				}
				var l gwLease
				if err := json.Unmarshal([]byte(stdout), &l); err != nil {
					g.t.Errorf("lease create: %v: %s", err, stdout)
					continue
				}
				mu.Lock()
				acked = append(acked, l)
				if len(acked) == killAt {
					once.Do(func() { _ = g.cmd.Process.Kill() })
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if len(acked) < killAt {
		g.t.Fatalf("only %d of %d creates answered: the burst ended before the kill", len(acked), n)
	}
	_ = g.cmd.Wait()
	g.cmd = nil
	return acked
}
