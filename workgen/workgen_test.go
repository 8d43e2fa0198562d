package workgen

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/workload"
)

func containsWord(err error, w string) bool { return err != nil && strings.Contains(err.Error(), w) }

// Every model: the same seed gives the same workload, another seed
// another one.
func TestDeterminism(t *testing.T) {
	for _, m := range Models() {
		t.Run(m, func(t *testing.T) {
			a, err := Generate(m, 42, testParams(m))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := Generate(m, 42, testParams(m))
			c, _ := Generate(m, 43, testParams(m))
			if !reflect.DeepEqual(a, b) {
				t.Error("seed 42 twice: different workloads")
			}
			if ab, bb := written(t, a), written(t, b); !bytes.Equal(ab, bb) {
				t.Error("seed 42 twice: different bytes")
			}
			a.Seed, c.Seed = 0, 0
			if reflect.DeepEqual(a.Requests, c.Requests) {
				t.Error("seeds 42 and 43: the same requests")
			}
		})
	}
}

func TestUnknownModel(t *testing.T) {
	_, err := Generate("lublin98", 1, nil)
	if !errors.Is(err, ErrUnknownModel) || !containsWord(err, "lublin98") {
		t.Errorf("error %v, want ErrUnknownModel naming lublin98", err)
	}
}

// testParams are the parameters a model needs to run from this directory.
func testParams(model string) map[string]string {
	switch model {
	case "local-grid":
		return map[string]string{"trace": sdsc}
	case "gwa-bot", "das2":
		return map[string]string{"days": "0.1"}
	}
	return nil
}

// written is a workload as the writers write it: every request of the
// gateway and of each cluster, in JSON.
func written(t *testing.T, w *Workload) []byte {
	t.Helper()
	var b bytes.Buffer
	all := [][]scheduler.Request{w.Requests}
	for _, c := range w.Clusters {
		all = append(all, c.Requests)
	}
	for _, reqs := range all {
		if err := workload.WriteJSON(&b, reqs); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// TestClusters: the multi-cluster models' clusters, before generating,
// are those Generate fills (names and sizes, no requests); the
// single-cluster models have none.
func TestClusters(t *testing.T) {
	for _, m := range Models() {
		t.Run(m, func(t *testing.T) {
			got, err := Clusters(m)
			if err != nil {
				t.Fatal(err)
			}
			w, err := Generate(m, 1, testParams(m))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(w.Clusters) {
				t.Fatalf("%d clusters, Generate gives %d", len(got), len(w.Clusters))
			}
			for i, c := range got {
				g := w.Clusters[i]
				if c.Name != g.Name || c.Hosts != g.Hosts || c.HostCPU != g.HostCPU || c.HostMemory != g.HostMemory || c.MIPS != g.MIPS || c.Requests != nil {
					t.Errorf("cluster %d: %+v, Generate's %s of %d hosts", i, c, g.Name, g.Hosts)
				}
			}
		})
	}
	if c, _ := Clusters("gwa-bot"); len(c) != 3 || c[0].Name != "C64" || c[0].Hosts != 64 || c[2].Hosts != 256 {
		t.Errorf("gwa-bot: %+v, want C64, C128, C256", c)
	}
	if _, err := Clusters("das3"); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("das3: %v, want ErrUnknownModel", err)
	}
}
