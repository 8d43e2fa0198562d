package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// simJSON runs bora simulate -o json with args and decodes the report.
func simJSON(t *testing.T, args ...string) (rep struct {
	Hosts   int `json:"hosts"`
	Cluster struct {
		Hosts  int     `json:"hosts"`
		CPU    float64 `json:"cpu"`
		Memory int64   `json:"memory"`
		Source string  `json:"source"`
	} `json:"cluster"`
	Leases []struct {
		Name   string   `json:"name"`
		StartS *float64 `json:"start_s"`
	} `json:"leases"`
}, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"simulate", "-o", "json"}, args...), strings.NewReader(""), &out, &errb, func(string) string { return "" })
	if code == exitOK {
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
	}
	return rep, errb.String(), code
}

// TestSimulateSite: the trace's LWF <site> (4 hosts of 2 cores, 2048 MB)
// is the simulated cluster unless flags override it. On the site, the two
// 8-VM leases of testdata/traces/site-4hosts.lwf fill all 8 cores in turn:
// B starts when A ends, at 3600 s. With --hosts 8 (2 cores each from the
// site) both start at 0, with a warning naming the flag and the site.
func TestSimulateSite(t *testing.T) {
	const trace = "../../testdata/traces/site-4hosts.lwf"
	const site = "(4 hosts of 2 cores, 2048 MB)"
	cases := []struct {
		name   string
		args   []string
		hosts  int
		cpu    float64
		memory int64
		source string
		startB float64
		warn   string
	}{
		{"site", nil, 4, 2, 2048, "site", 3600, ""},
		{"hosts flag", []string{"--hosts", "8"}, 8, 2, 2048, "site+flags", 0,
			"bora: warning: --hosts 8 overrides the site of " + trace + " " + site + "\n"},
		// 16 one-core hosts: both leases at once
		{"all flags", []string{"--hosts", "16", "--host-cpu", "1", "--host-memory", "1024"}, 16, 1, 1024, "flags", 0,
			"bora: warning: --hosts 16, --host-cpu 1, --host-memory 1024 override the site of " + trace + " " + site + "\n"},
		// --set cluster.hosts is a flag too
		{"set", []string{"--set", "cluster.hosts=8"}, 8, 2, 2048, "site+flags", 0,
			"bora: warning: --set cluster.hosts=8 overrides the site of " + trace + " " + site + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, stderr, code := simJSON(t, append([]string{"--trace", trace}, c.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			cl := rep.Cluster
			if rep.Hosts != c.hosts || cl.Hosts != c.hosts || cl.CPU != c.cpu || cl.Memory != c.memory || cl.Source != c.source {
				t.Errorf("hosts %d, cluster %+v; want %d hosts of %g cores, %d MB from %s", rep.Hosts, cl, c.hosts, c.cpu, c.memory, c.source)
			}
			if stderr != c.warn {
				t.Errorf("stderr %q, want %q", stderr, c.warn)
			}
			for _, l := range rep.Leases {
				if l.Name == "B" && (l.StartS == nil || *l.StartS != c.startB) {
					t.Errorf("B started at %s, want %v", startText(l.StartS), c.startB)
				}
			}
		})
	}
}

// TestSimulateClusterSource: without a site the report says whether the
// cluster came from the defaults, the config file or the flags; a site
// replaces the config file's cluster, with a warning.
func TestSimulateClusterSource(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte("cluster: {hosts: 10}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const scen = "../../testdata/scenarios/preempt.yaml"
	cases := []struct {
		name   string
		args   []string
		hosts  int
		source string
		warn   string
	}{
		{"default", []string{"--trace", scen}, 144, "default", ""},
		{"config", []string{"--trace", scen, "--config", cfg}, 10, "config", ""},
		{"flags", []string{"--trace", scen, "--config", cfg, "--hosts", "3"}, 3, "flags", ""},
		{"site over config", []string{"--trace", "../../testdata/traces/site-4hosts.lwf", "--config", cfg}, 4, "site",
			"bora: warning: the site of ../../testdata/traces/site-4hosts.lwf (4 hosts of 2 cores, 2048 MB) replaces the config file's cluster (10 hosts of 1 cores, 1024 MB)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, stderr, code := simJSON(t, append(c.args, "--policy", "MOV")...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if rep.Cluster.Hosts != c.hosts || rep.Cluster.Source != c.source || stderr != c.warn {
				t.Errorf("cluster %+v, stderr %q; want %d hosts from %s, %q", rep.Cluster, stderr, c.hosts, c.source, c.warn)
			}
		})
	}
}

// TestSimulateHeterogeneousSite: bora simulates identical hosts, so a
// site whose node-sets differ is refused (exit 2, naming them) unless
// --host-cpu and --host-memory say what every host has.
func TestSimulateHeterogeneousSite(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "mixed.lwf")
	lwf := `<lease-workload><site><nodes>
<node-set numnodes="4"><res type="CPU" amount="100"/><res type="Memory" amount="1024"/></node-set>
<node-set numnodes="2"><res type="CPU" amount="200"/><res type="Memory" amount="2048"/></node-set>
</nodes></site><lease-requests>
<lease-request arrival="0"><lease id="A"><nodes><node-set numnodes="1"><res type="CPU" amount="100"/><res type="Memory" amount="512"/></node-set></nodes><start/><duration time="00:10:00"/><software><none/></software></lease></lease-request>
</lease-requests></lease-workload>`
	if err := os.WriteFile(trace, []byte(lwf), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := simJSON(t, "--trace", trace)
	want := "bora: " + trace + ": the site's hosts are not all alike (4 hosts of 1 cores, 1024 MB; 2 hosts of 2 cores, 2048 MB) and bora simulates identical hosts: give --host-cpu and --host-memory (and --hosts) for the cluster to use\n"
	if code != exitUsage || stderr != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr, exitUsage, want)
	}
	// The 6 hosts of the site, each of 1 core and 1024 MB as the flags say.
	rep, stderr, code := simJSON(t, "--trace", trace, "--host-cpu", "1", "--host-memory", "1024")
	if code != exitOK || rep.Cluster.Hosts != 6 || rep.Cluster.CPU != 1 || rep.Cluster.Source != "site+flags" {
		t.Errorf("exit %d (%s), cluster %+v; want 6 hosts of 1 core from site+flags", code, stderr, rep.Cluster)
	}
}

// TestSimulateStorage: --storage local suspends and resumes a lease's VMs
// on different hosts in parallel. A 4-VM best-effort lease on 4 hosts is
// suspended for a 4-VM advance reservation; images go at 50 MB/s, so a
// 1024 MB VM takes 20.48 s each way (t_p 0.005 s, delta 2.3 s):
//
//	shared: L^s = 4*20.48 + 4*0.005 + 2.3 = 84.24, L^r = 81.94, h = 166.18 s
//	local:  L^s = 20.48 + 0.005 + 2.3 = 22.785, L^r = 20.485, h = 43.27 s
func TestSimulateStorage(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.yaml")
	yaml := `leases:
  - {name: BE, arrival: 0, duration: 10h, vms: 4, cpu: 1, memory: 1024, class: suspendable, origin: external}
  - {name: AR, arrival: 60, start: 1h, duration: 1h, vms: 4, cpu: 1, memory: 1024, kind: advance-reservation, origin: local}
`
	if err := os.WriteFile(trace, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		storage string
		want    string
	}{{"", "166.18"}, {"shared", "166.18"}, {"local", "43.27"}} {
		args := []string{"simulate", "--trace", trace, "--hosts", "4", "--suspend-rate", "50", "--resume-rate", "50"}
		if c.storage != "" {
			args = append(args, "--storage", c.storage)
		}
		var out, errb bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &out, &errb, func(string) string { return "" })
		rows := map[string]string{}
		for _, line := range strings.Split(out.String(), "\n") {
			if i := strings.LastIndex(line, "  "); i > 0 {
				rows[strings.TrimSpace(line[:i])] = strings.TrimSpace(line[i:])
			}
		}
		if code != exitOK || rows["preemption overhead (s)"] != c.want {
			t.Errorf("--storage %q: exit %d (%s), overhead %q; want %s\n%s", c.storage, code, errb.String(), rows["preemption overhead (s)"], c.want, out.String())
		}
	}
	var errb bytes.Buffer
	code := run(context.Background(), []string{"simulate", "--trace", trace, "--storage", "nfs"}, strings.NewReader(""), &bytes.Buffer{}, &errb, func(string) string { return "" })
	want := "bora: scheduler.overheads.storage: unknown value \"nfs\" (want shared, local)\n"
	if code != exitUsage || errb.String() != want {
		t.Errorf("--storage nfs: exit %d, stderr %q; want %d, %q", code, errb.String(), exitUsage, want)
	}
}

func startText(s *float64) string {
	if s == nil {
		return "never"
	}
	return strconv.FormatFloat(*s, 'f', -1, 64)
}
