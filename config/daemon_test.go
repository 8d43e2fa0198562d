package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestSampleConfigDaemonSections: the sample's daemon sections are the
// defaults too.
func TestSampleConfigDaemonSections(t *testing.T) {
	c, err := Load("../docs/sample-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	if !reflect.DeepEqual(c.Daemon, d.Daemon) || c.API.Socket != d.API.Socket || c.API.MaxBody != d.API.MaxBody ||
		c.Driver.Name != d.Driver.Name || c.Jobs != d.Jobs || c.Power.Timeout != d.Power.Timeout {
		t.Errorf("sample's daemon sections differ from the defaults:\n%+v\n%+v", c, d)
	}
}

// TestEmulationExampleLoads: the shipped emulation config is valid for
// borad.
func TestEmulationExampleLoads(t *testing.T) {
	c, err := LoadDaemon("../examples/emulation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Driver.Name != "fake" || len(c.Hosts) != 4 || c.Daemon.Clock != "scaled" || c.Daemon.Speed != 60 {
		t.Fatalf("unexpected: %+v", c)
	}
	e, err := LoadDaemon("../examples/emulation-energy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if e.Power.Driver != "fake" || e.Energy.Policy != "pemp" || len(e.Power.Faults) != 1 || e.Emulation.Workload == "" {
		t.Fatalf("energy example: %+v %+v", e.Power, e.Energy)
	}
}

const goodDaemon = `
daemon: {store: /tmp/x.db, clock: simulated, op_timeout: 1m}
api:
  socket: /tmp/x.sock
  tokens:
    - {token: 0123456789abcdef, user: gateway, external: true}
driver:
  name: fake
  fake:
    faults:
      - {op: start, host: h1, times: 1, fail: "no bootable device"}
      - {op: host-loss, host: h2, after: 1h}
hosts:
  - {name: h1, cpu: 2, memory: 2048}
  - {name: h2, cpu: 2.5, memory: 4096}
jobs: {accounting: "*/5 * * * *", compaction: ""}
`

func TestDaemonSectionsParse(t *testing.T) {
	c, err := Parse([]byte(goodDaemon), "good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ValidateDaemon(); err != nil {
		t.Fatal(err)
	}
	if c.Daemon.OpTimeout != time.Minute || c.Hosts[1].CPU != 2.5 || c.Driver.Fake.Faults[1].After != time.Hour ||
		!c.API.Tokens[0].External || c.Jobs.Accounting != "*/5 * * * *" || c.Daemon.OpRetries != 2 {
		t.Fatalf("parsed: %+v", c)
	}
}

// TestDaemonConfigErrors: every mistake names its key and line (for a
// one-line document, line 1 also for keys found wrong by validation).
func TestDaemonConfigErrors(t *testing.T) {
	cases := []struct {
		name, yaml, key string
		line            int
	}{
		{"typo in a section", "daemon:\n  stroe: /x\n", "daemon.stroe", 2},
		{"unknown section key", "api:\n  socket: /x\n  sockt_mode: 1\n", "api.sockt_mode", 3},
		{"typo in a host", "hosts:\n  - {name: a, cpu: 1, memroy: 5}\n", "hosts[0].memroy", 2},
		{"list expected", "hosts: {name: a}\n", "hosts", 1},
		{"bad duration", "daemon:\n  op_timeout: soon\n", "daemon.op_timeout", 2},
		{"wrong type", "api:\n  max_body: big\n", "api.max_body", 2},
		{"bad clock", "daemon: {clock: sundial}\nhosts: [{name: a, cpu: 1, memory: 1}]\n", "daemon.clock", 1},
		{"no hosts for fake", "daemon: {store: /x}\n", "hosts", 1},
		{"duplicate host", "hosts: [{name: a, cpu: 1, memory: 1}, {name: a, cpu: 1, memory: 1}]\n", "hosts[1].name", 1},
		{"short token", "api: {tokens: [{token: abc, user: u}]}\nhosts: [{name: a, cpu: 1, memory: 1}]\n", "api.tokens[0].token", 1},
		{"tcp without tls", "api: {tcp: ':8443'}\nhosts: [{name: a, cpu: 1, memory: 1}]\n", "api.tls_cert", 1},
		{"bad cron", "jobs: {accounting: 'every so often'}\nhosts: [{name: a, cpu: 1, memory: 1}]\n", "jobs.accounting", 1},
		{"bad fault", "driver: {fake: {faults: [{op: explode}]}}\nhosts: [{name: a, cpu: 1, memory: 1}]\n", "driver.fake.faults[0].op", 1},
		{"bad socket mode", "api: {socket_mode: rw}\nhosts: [{name: a, cpu: 1, memory: 1}]\n", "api.socket_mode", 1},
		{"unknown driver", "driver: {name: xen}\nhosts: [{name: a, cpu: 1, memory: 1}]\n", "driver.name", 1},
		{"bad mac", "hosts: [{name: a, cpu: 1, memory: 1, mac: '52:54:00'}]\n", "hosts[0].mac", 1},
		{"power fault op", "power: {driver: fake, faults: [{op: reboot, fail: x}]}\nhosts: [{name: a, cpu: 1, memory: 1}]\n", "power.faults[0].op", 1},
		{"power fault empty", "power: {driver: fake, faults: [{op: on}]}\nhosts: [{name: a, cpu: 1, memory: 1}]\n", "power.faults[0]", 1},
		{"power fault driver", "power: {driver: command, on: 'true', off: 'true', faults: [{op: on, fail: x}]}\nhosts: [{name: a, cpu: 1, memory: 1}]\n", "power.faults[0]", 1},
		{"energy schedule", "energy: {schedule: 'now and then'}\nhosts: [{name: a, cpu: 1, memory: 1}]\n", "energy.schedule", 1},
		{"bad snapshot cron", "jobs: {snapshot: 'twice a day'}\nhosts: [{name: a, cpu: 1, memory: 1}]\n", "jobs.snapshot", 1},
		{"no snapshot kept", "jobs: {snapshot: '@daily', snapshot_keep: 0}\nhosts: [{name: a, cpu: 1, memory: 1}]\n", "jobs.snapshot_keep", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadDaemon(path)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a config error", err)
			}
			if e.Key != tc.key || e.Line != tc.line {
				t.Fatalf("error %q names %s line %d, want %s line %d", err, e.Key, e.Line, tc.key, tc.line)
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name the file", err)
			}
		})
	}
}
