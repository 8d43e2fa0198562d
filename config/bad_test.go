package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestBadFiles: every kind of refusal names the file, the line and the
// full key path, exactly. One testdata/*.bad.yaml per kind; each file
// must be in the table, and each line number below is the line of that
// file the key (or, for a key left out, the key that made it needed) is
// written on.
func TestBadFiles(t *testing.T) {
	want := map[string]string{
		// yaml.v3 reports the mapping that the mis-indented line 3 breaks.
		"syntax":              `2: (document): did not find expected key`,
		"duplicate-section":   `5: daemon: key written twice (first at line 1)`,
		"duplicate-key":       `5: hosts[0].cpu: key written twice (first at line 3)`,
		"unknown-key":         `3: daemon.stroe: unknown key (known here: clock, log_format, log_level, op_retries, op_timeout, shutdown_grace, shutdown_timeout, speed, start, store, strict_restore)`,
		"not-a-number":        `3: daemon.speed: "fast" is not a number`,
		"backfilling":         `2: scheduler.backfilling: unknown value "sideways" (want conservative, aggressive, none)`,
		"overheads-negative":  `5: scheduler.overheads.pause: must not be negative, got -1s`,
		"max-head-delay":      `3: scheduler.max_head_delay: must not be negative, got -1h0m0s`,
		"storage":             `3: scheduler.overheads.storage: unknown value "nfs" (want shared, local)`,
		"storage-notransfer":  `4: scheduler.overheads.storage: local storage keeps each image on its host's disk, but migration yes-notransfer resumes elsewhere without copying it (want migration yes or no, or storage shared)`,
		"preemption-policy":   `4: scheduler.preemption.policy: unknown policy "FOO" (want NOP, MOV, MLIP or MOML)`,
		"immediate-boot-wait": `3: scheduler.immediate_boot_wait: must not be negative, got -30s`,
		"cluster-hosts":       `3: cluster.hosts: need at least 1, got 0`,
		"energy-watts":        `2: energy.idle_watts: must be finite and not negative, got -5`,
		// The HR row is left out: the line is its mapping's, rules.
		"energy-fuzzy": `4: energy.fuzzy.rules.HR: missing row`,
		"energy-tick":  `2: energy.tick: must be positive`,
		"daemon-clock": `5: daemon.clock: "sundial": must be real, scaled or simulated`,
		"daemon-speed": `5: daemon.speed: must be positive with a scaled clock`,
		"daemon-start": `3: daemon.start: "yesterday" is not an RFC 3339 time`,
		"log-level":    `2: daemon.log_level: "chatty": must be debug, info, warn or error`,
		"socket-mode":  `3: api.socket_mode: "0999" is not an octal file mode like 0660`,
		// tls_cert is left out: the line is api.tcp's, which needs it.
		"tls-missing": `4: api.tls_cert: a tcp listener needs tls_cert and tls_key (or insecure_tcp for tests)`,
		"token-short": `6: api.tokens[1].token: must be at least 16 characters`,
		"host-twice":  `3: hosts[1].name: "h1" used twice`,
		// memory is left out: the line is the host's.
		"host-memory": `2: hosts[0].memory: the fake driver needs cpu and memory for every host`,
		"host-mac":    `5: hosts[0].mac: "not-a-mac" is not a MAC address like 52:54:00:12:34:56`,
		// hosts is left out: the line is driver.name's, which needs them.
		"no-hosts":      `4: hosts: the fake driver needs at least one host`,
		"driver-name":   `4: driver.name: "xen": must be fake, libvirt or opennebula`,
		"libvirt":       `7: driver.libvirt.domain_type: "xen" is not qemu or kvm`,
		"opennebula":    `5: driver.opennebula.poll_interval: must be positive, got -5s`,
		"fault-op":      `6: driver.fake.faults[0].op: "explode" is not an operation`,
		"power-driver":  `4: power.driver: "magic": must be none, fake, command or opennebula`,
		"power-command": `4: power.on: the command power driver needs on and off commands`,
		"power-template": `5: power.on: template: on:1:12: executing "on" at <.Mac>: can't evaluate field Mac` +
			` (the fields are .Name, .Address, .MAC and .BMC)`,
		"energy-needs-power":     `4: energy.policy: "pemp" switches hosts on and off: it needs power.driver fake, command or opennebula`,
		"emulation-workload":     `4: emulation.workload: open testdata/no-such-trace.yaml: no such file or directory`,
		"jobs-cron":              `4: jobs.compaction: "every day" is not a cron schedule: expected exactly 5 fields, found 2: [every day]`,
		"admission-policy":       `3: admission.policy: unknown policy "kapac" (want accept-all, one-at-a-time, pacp, rate)`,
		"admission-share":        `3: admission.recompute_share: must be above 0 and at most 1, got 1.5`,
		"availability-threshold": `3: admission.availability.threshold: must be 0 (off) or above 0 and at most 1, got 1.5`,
		"availability-weight":    `3: admission.availability.weight: must be between 0 and 1, got -0.1`,
		"availability-tau":       `5: admission.availability.tau: must be positive, got 0s`,
		"admission-schedule":     `3: admission.schedule: "every hour": expected exactly 5 fields, found 2: [every hour]`,
	}
	files, err := filepath.Glob("testdata/*.bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Errorf("%d testdata/*.bad.yaml files, %d cases: every file needs its case", len(files), len(want))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".bad.yaml")
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("no expected error for %s", f)
			}
			_, err := LoadDaemon(f)
			if err == nil || err.Error() != f+":"+w {
				t.Errorf("got  %v\nwant %s:%s", err, f, w)
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.Line < 1 {
				t.Errorf("%v is not an *Error with a line", err)
			}
		})
	}
}

// TestDuplicateKeyIsErrDuplicateKey: a key written twice at any depth
// wraps ErrDuplicateKey, and so does one in a list item's mapping.
func TestDuplicateKeyIsErrDuplicateKey(t *testing.T) {
	for _, doc := range []string{
		"scheduler:\n  backfilling: none\nscheduler:\n  mapper: pack\n",
		"scheduler:\n  overheads:\n    pause: 1s\n    pause: 2s\n",
		"energy:\n  fuzzy: {}\n  fuzzy: {}\n",
	} {
		if _, err := Parse([]byte(doc), "t.yaml"); !errors.Is(err, ErrDuplicateKey) {
			t.Errorf("%q: got %v, want ErrDuplicateKey", doc, err)
		}
	}
}

// TestShippedConfigsLoad: the sample config ("every key with its
// default") and every example config pass borad's loader (bora config
// check); a workload named by an example's emulation.workload is a trace,
// not a config.
func TestShippedConfigsLoad(t *testing.T) {
	files, err := filepath.Glob("../examples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	workloads := map[string]bool{}
	for _, f := range files {
		var doc struct {
			Emulation struct{ Workload string } `yaml:"emulation"`
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if yaml.Unmarshal(data, &doc) == nil && doc.Emulation.Workload != "" {
			workloads[filepath.Join(filepath.Dir(f), doc.Emulation.Workload)] = true
		}
	}
	checked := 0
	for _, f := range append([]string{"../docs/sample-config.yaml"}, files...) {
		// A federation file (bora simulate --federation) and a gateway
		// config (bora gateway serve) are no borad config: package
		// federation's TestExampleFile and gateway's TestExampleConfig
		// read them.
		if b := filepath.Base(f); workloads[f] || b == "federation.yaml" || b == "gateway.yaml" {
			continue
		}
		if _, err := LoadDaemon(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		checked++
	}
	if checked < 4 { // the sample, emulation, emulation-energy, opennebula
		t.Errorf("checked %d files, want at least 4", checked)
	}
}
