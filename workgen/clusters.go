package workgen

import (
	"fmt"
	"math"
	"time"
)

// The three clusters of the source's multi-cluster experiments (DAS-2,
// docs/workloads.md §2 and §3): single-core hosts of 1024 MB.
var das2Clusters = []struct {
	name  string
	hosts int
	mips  int
}{{"C64", 64, 2000}, {"C128", 128, 3000}, {"C256", 256, 2100}}

// newCluster is an empty cluster of the given size.
func newCluster(name string, hosts, mips int) Cluster {
	return Cluster{Name: name, Hosts: hosts, HostCPU: 100, HostMemory: 1024, MIPS: mips}
}

// millis turns seconds into a duration rounded to the millisecond: the
// multi-cluster models' inter-arrivals are seconds long, too short to
// round to the second without changing their variance.
func millis(s float64) time.Duration {
	return time.Duration(math.Round(s*1000)) * time.Millisecond
}

// Clusters returns the clusters of the named model without their
// requests, in the order Generate lists them in Workload.Clusters, so a
// caller can check its setup before generating anything; nil for a
// single-cluster model. The error wraps ErrUnknownModel.
func Clusters(name string) ([]Cluster, error) {
	m, ok := models[name]
	if !ok {
		return nil, fmt.Errorf("%q (models: %v): %w", name, Models(), ErrUnknownModel)
	}
	if !m.multi {
		return nil, nil
	}
	var out []Cluster
	for _, c := range das2Clusters {
		out = append(out, newCluster(c.name, c.hosts, c.mips))
	}
	return out, nil
}
