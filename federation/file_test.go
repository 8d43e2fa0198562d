package federation

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bora-sched/bora/scheduler"
)

// TestExampleFile: the shipped examples/federation.yaml reads, and its
// setup has das2's three clusters with their hosts, speeds from the
// file, C64's admission stage, and the generated requests.
func TestExampleFile(t *testing.T) {
	f, err := Load("../examples/federation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Setup("")
	if err != nil {
		t.Fatal(err)
	}
	if s.Policy != "pap-rtdp" || len(s.Clusters) != 3 || len(s.External) == 0 {
		t.Fatalf("policy %s, %d clusters, %d external", s.Policy, len(s.Clusters), len(s.External))
	}
	for i, want := range []struct {
		name  string
		hosts int
		speed float64
		adm   bool
	}{{"C64", 64, 2.0, true}, {"C128", 128, 3.0, false}, {"C256", 256, 2.1, false}} {
		m := s.Clusters[i]
		if m.Sim.Name != want.name || m.Sim.Cluster.Hosts != want.hosts || m.Speed != want.speed || (m.Sim.Admission != nil) != want.adm || len(m.Local) == 0 {
			t.Errorf("cluster %d: %s, %d hosts, speed %v, admission %v, %d local; want %+v", i, m.Sim.Name, m.Sim.Cluster.Hosts, m.Speed, m.Sim.Admission != nil, len(m.Local), want)
		}
		if m.Sim.Scheduler.Policy != "MOV" {
			t.Errorf("cluster %s: preemption policy %q, want the file's MOV", m.Sim.Name, m.Sim.Scheduler.Policy)
		}
	}
	if s2, _ := f.Setup("rr"); s2.Policy != "rr" {
		t.Errorf("Setup(rr) policy %q", s2.Policy)
	}
	// One Requests serves every policy: the same requests as a Setup of
	// its own draws, drawn once (the setups share them).
	reqs, err := f.Requests(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	a, errA := f.SetupFrom("rr", reqs, Overrides{})
	b, errB := f.SetupFrom("pap-rnd", reqs, Overrides{})
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if !reflect.DeepEqual(a.External, s.External) || !reflect.DeepEqual(a.Clusters[1].Local, s.Clusters[1].Local) || &a.External[0] != &b.External[0] {
		t.Error("SetupFrom on one Requests: not the requests Setup draws, or drawn again for the second policy")
	}
}

// TestTraceFiles: clusters not generated take their hosts, speed and
// local requests from the file, the gateway its trace; paths are
// relative to the file.
func TestTraceFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("gw.json", `[{"name": "g1", "arrival": 0, "duration": 60, "vms": 1, "cpu": 1, "memory": 1024, "kind": "best-effort", "origin": "external"}]`)
	write("a.json", `[{"name": "a1", "arrival": 5, "duration": 30, "vms": 1, "cpu": 1, "memory": 1024, "kind": "immediate"}]`)
	write("fed.yaml", "gateway: {policy: rr, trace: gw.json}\nclusters:\n  - {name: A, hosts: 2, speed: 1, trace: a.json}\n")
	f, err := Load(filepath.Join(dir, "fed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Setup("")
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "fed" || len(s.External) != 1 || len(s.Clusters[0].Local) != 1 || s.Clusters[0].Local[0].Origin != scheduler.Local || s.Clusters[0].Sim.Cluster.Hosts != 2 {
		t.Errorf("name %q, %d external, cluster %+v", f.Name, len(s.External), s.Clusters[0])
	}
}

// TestBadFiles: each mistake is refused with the key path and line.
func TestBadFiles(t *testing.T) {
	const good = "workload: {model: das2, seed: 1}\ngateway: {policy: rr}\nclusters:\n  - {name: C64}\n"
	for _, c := range []struct{ name, text, want string }{
		{"unknown key", good + "gatway: {}\n", "gatway"},
		{"no policy", "workload: {model: das2}\nclusters: [{name: C64}]\n", "gateway.policy: missing"},
		{"bad policy", "workload: {model: das2}\ngateway: {policy: fastest}\nclusters: [{name: C64}]\n", `gateway.policy: "fastest" (known: bcf, bcf-rnd, earliest-finish, lrf, lrf-rnd, pap-rnd, pap-rtdp, rr)`},
		{"no external", "gateway: {policy: rr}\nclusters: [{name: A, hosts: 1, speed: 1, trace: a.json}]\n", "gateway.trace: missing"},
		{"single-cluster model", "workload: {model: lublin99}\ngateway: {policy: rr}\nclusters: [{name: A}]\n", "workload.model: model lublin99 generates one cluster"},
		{"unknown model", "workload: {model: das3}\ngateway: {policy: rr}\nclusters: [{name: A}]\n", "workload.model"},
		{"no clusters", "workload: {model: das2}\ngateway: {policy: rr}\n", "clusters: missing"},
		{"no name", "workload: {model: das2}\ngateway: {policy: rr}\nclusters:\n  - {hosts: 3}\n", "clusters[0].name: missing"},
		{"same name", "workload: {model: das2}\ngateway: {policy: rr}\nclusters:\n  - {name: C64}\n  - {name: C64}\n", `:5: clusters[1].name: "C64" is also clusters[0]`},
		{"not generated", "workload: {model: das2}\ngateway: {policy: rr}\nclusters:\n  - {name: C32}\n", `clusters[0].trace: missing: cluster "C32" is not one the workload generates (C64, C128, C256)`},
		{"no hosts", "gateway: {policy: rr, trace: g.json}\nclusters:\n  - {name: A, trace: a.json, speed: 1}\n", "clusters[0].hosts: missing"},
		{"negative speed", good[:len(good)-2] + ", speed: -2}\n", "clusters[0].speed: -2: want a positive relative speed"},
		{"bad type", "workload: {model: das2}\ngateway: {policy: rr}\nclusters:\n  - {name: C64, hosts: many}\n", "clusters[0].hosts"},
		{"bad config key", good + "config: {scheduler.polcy: MOV}\n", "config.scheduler.polcy"},
		{"bad admission", "workload: {model: das2}\ngateway: {policy: rr}\nclusters:\n  - {name: C64, admission: maybe}\n", "clusters[0].admission"},
		{"empty", "", "empty file"},
		{"syntax", "gateway: [\n", "fed.yaml:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.text), "fed.yaml")
			if err == nil || !errors.Is(err, ErrFile) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an ErrFile containing %q", err, c.want)
			}
		})
	}
	if _, err := Parse([]byte(good), "fed.yaml"); err != nil {
		t.Errorf("good file: %v", err)
	}
}
