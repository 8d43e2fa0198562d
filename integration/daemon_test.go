package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// borad builds the real daemon once per test binary.
func borad(t *testing.T) string { return binary(t, "borad") }

// cluster is a borad with the fake driver in a temporary directory.
type cluster struct {
	t      *testing.T
	dir    string
	config string
	socket string
	cmd    *exec.Cmd
	log    *os.File
}

// newCluster writes a config for hosts fake hosts of 1 core and 1024 MB,
// a clock speed times the wall clock, and extra YAML appended.
func newCluster(t *testing.T, hosts int, speed float64, extra string) *cluster {
	t.Helper()
	return newClusterAPI(t, hosts, speed, "", extra)
}

// newClusterAPI is newCluster with more keys in the api section (a second
// api section is refused as a key written twice).
func newClusterAPI(t *testing.T, hosts int, speed float64, api, extra string) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts borad and waits for its schedule: not in -short runs")
	}
	dir := t.TempDir()
	var b strings.Builder
	fmt.Fprintf(&b, "daemon: {store: %s/bora.db, clock: scaled, speed: %g, log_level: debug, shutdown_timeout: 5s, op_retries: 0}\n", dir, speed)
	if api != "" {
		api = ", " + api
	}
	fmt.Fprintf(&b, "api: {socket: %s/bora.sock, socket_mode: \"0600\"%s}\njobs: {accounting: \"\", compaction: \"\"}\nhosts:\n", dir, api)
	for i := 0; i < hosts; i++ {
		fmt.Fprintf(&b, "  - {name: node%d, cpu: 1, memory: 1024}\n", i+1)
	}
	b.WriteString("scheduler: {check_invariants: true}\n")
	b.WriteString(extra)
	return writeCluster(t, dir, b.String())
}

// newClusterYAML is a cluster whose config is body plus the store, socket
// and jobs lines.
func newClusterYAML(t *testing.T, body string) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts borad and waits for its schedule: not in -short runs")
	}
	dir := t.TempDir()
	head := fmt.Sprintf("api: {socket: %s/bora.sock, socket_mode: \"0600\"}\njobs: {accounting: \"\", compaction: \"\"}\n", dir)
	body = strings.Replace(body, "daemon: {", fmt.Sprintf("daemon: {store: %s/bora.db, log_level: debug, ", dir), 1)
	return writeCluster(t, dir, head+body)
}

func writeCluster(t *testing.T, dir, yaml string) *cluster {
	t.Helper()
	c := &cluster{t: t, dir: dir, config: filepath.Join(dir, "bora.yaml"), socket: filepath.Join(dir, "bora.sock")}
	if err := os.WriteFile(c.config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.stop(syscall.SIGTERM)
		if t.Failed() {
			data, _ := os.ReadFile(filepath.Join(dir, "borad.log"))
			t.Logf("borad log:\n%s", tail(string(data), 60))
		}
	})
	return c
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// start starts borad and waits until it answers.
func (c *cluster) start() {
	c.t.Helper()
	log, err := os.OpenFile(filepath.Join(c.dir, "borad.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		c.t.Fatal(err)
	}
	c.log = log
	c.cmd = exec.Command(borad(c.t), "--config", c.config)
	c.cmd.Stdout, c.cmd.Stderr = log, log
	if err := c.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, _, code := c.bora("stats"); code == 0 {
			return
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(filepath.Join(c.dir, "borad.log"))
			c.t.Fatalf("borad did not answer:\n%s", tail(string(data), 30))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends sig to borad and waits for it to exit.
func (c *cluster) stop(sig syscall.Signal) {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = c.cmd.Process.Signal(sig)
	_ = c.cmd.Wait()
	c.cmd = nil
	c.log.Close()
}

// bora runs the CLI against this daemon.
func (c *cluster) bora(args ...string) (string, string, int) {
	c.t.Helper()
	return run(c.t, append([]string{"--socket", c.socket}, args...)...)
}

// must runs the CLI and fails the test on a non-zero exit.
func (c *cluster) must(args ...string) string {
	c.t.Helper()
	out, errOut, code := c.bora(args...)
	if code != 0 {
		c.t.Fatalf("bora %s: exit %d: %s%s", strings.Join(args, " "), code, errOut, out)
	}
	return out
}

type leaseJSON struct {
	ID          uint64   `json:"id"`
	State       string   `json:"state"`
	Kind        string   `json:"kind"`
	Reason      string   `json:"reason"`
	Hosts       []string `json:"hosts"`
	Preemptions int      `json:"preemptions"`
	History     []struct {
		State string `json:"state"`
	} `json:"history"`
}

func (c *cluster) create(args ...string) leaseJSON {
	c.t.Helper()
	out, errOut, code := c.bora(append([]string{"lease", "create", "-o", "json"}, args...)...)
	var l leaseJSON
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		c.t.Fatalf("lease create %v: exit %d: %v: %s%s", args, code, err, out, errOut)
	}
	return l
}

func (c *cluster) show(id uint64) leaseJSON {
	c.t.Helper()
	var l leaseJSON
	if err := json.Unmarshal([]byte(c.must("lease", "show", fmt.Sprint(id), "-o", "json")), &l); err != nil {
		c.t.Fatal(err)
	}
	return l
}

func (c *cluster) list() []leaseJSON {
	c.t.Helper()
	var ls []leaseJSON
	if err := json.Unmarshal([]byte(c.must("lease", "list", "-o", "json")), &ls); err != nil {
		c.t.Fatal(err)
	}
	return ls
}

// waitState polls lease id until its state is one of states.
func (c *cluster) waitState(id uint64, timeout time.Duration, states ...string) leaseJSON {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		l := c.show(id)
		for _, s := range states {
			if l.State == s {
				return l
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("lease %d is %s after %v, want %v", id, l.State, timeout, states)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func path(l leaseJSON) string {
	var s []string
	for _, e := range l.History {
		if len(s) == 0 || s[len(s)-1] != e.State {
			s = append(s, e.State)
		}
	}
	return strings.Join(s, ",")
}
