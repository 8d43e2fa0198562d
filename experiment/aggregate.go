package experiment

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
)

// A multi-cluster run simulates each cluster on its own and reports one
// row: aggregation says how each metric of the clusters' reports becomes
// the row's (docs/experiments.md, "Multi-cluster experiments"). A count
// is summed; a rate or a mean is the mean of the clusters' values
// weighted by the number it is taken over, which recomputes it from the
// summed counts (100 * sum rejected / sum submitted for a rejection
// rate); a time span is the longest. A metric without a rule here cannot
// be asked of a multi-cluster model: the file is refused at check time.
var aggregation = map[string]aggRule{
	"leases":                        sum(),
	"completed":                     sum(),
	"preempted_leases":              sum(),
	"preempted_vms":                 sum(),
	"preemption_overhead_s":         sum(),
	"deadline_misses":               sum(),
	"energy_kwh":                    sum(),
	"makespan_s":                    longest(),
	"local_rejection_rate":          weighted("local leases", count(isLocal)),
	"external_rejection_rate":       weighted("external leases", count(isExternal)),
	"external_completed_percent":    weighted("external leases", count(isExternal)),
	"migration_rate":                weighted("migratable leases", count(isMigratable)),
	"art_s":                         weighted("completed best-effort leases", count(isDoneBestEffort)),
	"awrt_s":                        weighted("VMs × run time of the completed best-effort leases", bestEffortWork),
	"violation_rate":                weighted("external leases that started", count(isStartedExternal)),
	"utilisation":                   weighted("CPU × makespan of each cluster", capacityTime),
	"utilisation_overhead_adjusted": weighted("CPU-seconds each cluster computed", computation),
	// Admission control's violation rate (a v + r)/(a + r) of docs/models.md
	// §4 is taken over the external leases submitted, a + r.
	"admission_violation_rate": weighted("external leases", count(isExternal)),
	// The share refused by the admission stage, over the same leases; and
	// the threshold D, each cluster's own, as an external lease met it.
	"admission_rejection_rate": weighted("external leases", count(isExternal)),
	"admission_threshold_s":    weighted("external leases", count(isExternal)),
}

// aggRule combines one metric over the clusters of a run.
type aggRule struct {
	how    string                       // "sum", "maximum" or "weighted by" what: as docs/experiments.md's table says
	weight func(*report.Report) float64 // a weighted mean's weight; nil otherwise
	max    bool                         // the largest value (else the sum, without weight)
}

func sum() aggRule     { return aggRule{how: "sum"} }
func longest() aggRule { return aggRule{how: "maximum", max: true} }
func weighted(over string, w func(*report.Report) float64) aggRule {
	return aggRule{how: "weighted by the " + over, weight: w}
}

// clusterResult is one cluster's simulation in a multi-cluster run: its
// name, its report and the report's metrics by name.
type clusterResult struct {
	name   string
	report *report.Report
	values map[string]float64
}

// aggregate is metric name over the clusters: ok is false when a cluster
// did not measure it (energy_kwh without an energy policy). A weighted
// mean with no weight at all (no local lease anywhere) is 0, as the
// simulator reports a rate over no lease.
func aggregate(name string, cs []clusterResult) (v float64, ok bool, err error) {
	rule, known := aggregation[name]
	if !known {
		return 0, false, fmt.Errorf("metric %s: %w", name, errNoAggregation)
	}
	var num, den float64
	for i, c := range cs {
		x, ok := c.values[name]
		if !ok {
			return 0, false, nil
		}
		switch {
		case rule.weight != nil:
			w := rule.weight(c.report)
			num, den = num+x*w, den+w
		case rule.max:
			if i == 0 || x > num {
				num = x
			}
		default:
			num += x
		}
	}
	if rule.weight == nil {
		return num, true, nil
	}
	if den == 0 {
		return 0, true, nil
	}
	return num / den, true, nil
}

// errNoAggregation: a metric has no entry in aggregation.
var errNoAggregation = errors.New("no rule to aggregate it over the clusters of a multi-cluster model")

// aggregationRules lists the metrics with a rule, sorted.
func aggregationRules() string {
	var out []string
	for n := range aggregation {
		out = append(out, n)
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

func count(keep func(report.Lease) bool) func(*report.Report) float64 {
	return func(r *report.Report) float64 {
		n := 0
		for _, l := range r.Leases {
			if keep(l) {
				n++
			}
		}
		return float64(n)
	}
}

func isLocal(l report.Lease) bool      { return l.Origin == string(scheduler.Local) }
func isExternal(l report.Lease) bool   { return l.Origin == string(scheduler.External) }
func isMigratable(l report.Lease) bool { return l.Class == string(scheduler.Migratable) }
func isStartedExternal(l report.Lease) bool {
	return isExternal(l) && l.StartS != nil
}
func isDoneBestEffort(l report.Lease) bool {
	return l.State == string(scheduler.Done) && l.Kind == string(scheduler.BestEffort)
}

// bestEffortWork is AWRT's denominator: VMs x real run time summed over
// the completed best-effort leases.
func bestEffortWork(r *report.Report) float64 {
	var w float64
	for _, l := range r.Leases {
		if isDoneBestEffort(l) {
			w += float64(l.VMs) * l.RealS
		}
	}
	return w
}

// capacityTime is utilisation's denominator: the cluster's CPU (cores)
// times its makespan.
func capacityTime(r *report.Report) float64 {
	return float64(r.Cluster.Hosts) * r.Cluster.CPU * r.Metrics.MakespanS
}

// computation is the overhead-adjusted utilisation's denominator: the
// CPU-seconds the VMs computed (utilisation x capacity x makespan).
func computation(r *report.Report) float64 {
	return r.Metrics.Utilisation / 100 * capacityTime(r)
}
