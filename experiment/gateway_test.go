package experiment

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// gatewaySpec is multiSpec's tiny gwa-bot with two policies alike but
// for the gateway: the legacy round-robin split and the federation's rr
// gateway.
const gatewaySpec = `name: gw
model: gwa-bot
params: {days: "0.01"}
vary:
  param: alpha_e
  values: ["1.7", "3.2"]
policies:
  - {name: split}
  - {name: RR, gateway: rr}
  - {name: PAP, gateway: pap-rtdp}
seeds: 2
first_seed: 1
metrics: [leases, completed, local_rejection_rate, external_completed_percent, preempted_leases, makespan_s, utilisation, awrt_s]
`

// TestGatewayPolicy: with no admission stage, the federation's rr gateway
// gives every sample, overall and per cluster, that the round-robin
// split gives (each cluster is advanced only to the arrivals it gets);
// pap-rtdp, which sends the external leases elsewhere, gives other
// clusters' lease counts with the same total.
func TestGatewayPolicy(t *testing.T) {
	s, err := Parse([]byte(gatewaySpec), "gw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), s, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	differs := false
	for p := range s.Vary.Values {
		for m, name := range s.Metrics {
			for k := range r.Seeds {
				if a, b := r.Samples[p][0][m][k], r.Samples[p][1][m][k]; !near(a, b, 1e-9) {
					t.Errorf("point %d seed %d %s: split %v, rr gateway %v", p, k, name, a, b)
				}
				for c := range r.Clusters {
					if a, b := r.ClusterSamples[p][0][m][c][k], r.ClusterSamples[p][1][m][c][k]; !near(a, b, 1e-9) {
						t.Errorf("point %d seed %d %s cluster %s: split %v, rr gateway %v", p, k, name, r.Clusters[c], a, b)
					}
				}
				if name == "leases" {
					if r.Samples[p][2][m][k] != r.Samples[p][0][m][k] {
						t.Errorf("pap-rtdp: %v leases in all, want %v", r.Samples[p][2][m][k], r.Samples[p][0][m][k])
					}
					differs = differs || r.ClusterSamples[p][2][m][0][k] != r.ClusterSamples[p][0][m][0][k]
				}
			}
		}
	}
	if !differs {
		t.Error("pap-rtdp put as many leases on C64 as round robin at every point and seed")
	}
}

// TestGatewayBad: an unknown gateway policy, and a gateway on a
// single-cluster model, are refused with their key.
func TestGatewayBad(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{strings.Replace(gatewaySpec, "gateway: rr", "gateway: fastest", 1), `policies[1].gateway: "fastest" (known:`},
		{"model: lublin99\nvary: {param: mean_vms, values: [\"2\"]}\npolicies:\n  - {name: A}\n  - {name: B, gateway: rr}\nseeds: 2\nmetrics: [leases]\n",
			"policies[1].gateway: model lublin99 simulates one cluster"},
	} {
		_, err := Parse([]byte(c.text), "gw.yaml")
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
