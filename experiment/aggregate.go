package experiment

import (
	"slices"
	"strings"
)

// A multi-cluster run reports one row from its clusters' reports:
// federation.Overall computes it, for the round-robin split and for a
// gateway policy alike (docs/experiments.md, "Multi-cluster
// experiments"). A count is summed; a rate or a mean is the mean of the
// clusters' values weighted by the number it is taken over, which
// recomputes it from the summed counts (100 * sum rejected / sum
// submitted for a rejection rate); a time span is the longest.
//
// aggregation lists the rule of each metric as docs/experiments.md's
// table gives it (TestAggregationDocumented holds the two together, and
// TestOverallMeasuresEveryRule holds it to Overall). A metric without a
// rule here cannot be asked of a multi-cluster model: the file is
// refused at check time.
var aggregation = map[string]string{
	"leases":                        "sum",
	"completed":                     "sum",
	"preempted_leases":              "sum",
	"preempted_vms":                 "sum",
	"preemption_overhead_s":         "sum",
	"deadline_misses":               "sum",
	"energy_kwh":                    "sum",
	"makespan_s":                    "maximum",
	"local_rejection_rate":          weighted("local leases"),
	"external_rejection_rate":       weighted("external leases"),
	"external_completed_percent":    weighted("external leases"),
	"migration_rate":                weighted("migratable leases"),
	"art_s":                         weighted("completed best-effort leases"),
	"awrt_s":                        weighted("VMs × run time of the completed best-effort leases"),
	"violation_rate":                weighted("external leases that started"),
	"utilisation":                   weighted("CPU × makespan of each cluster"),
	"utilisation_overhead_adjusted": weighted("CPU-seconds each cluster computed"),
	// Admission control's violation rate (a v + r)/(a + r) of docs/models.md
	// §4 is taken over the external leases submitted, a + r.
	"admission_violation_rate": weighted("external leases"),
	// The share refused by the admission stage, over the same leases; and
	// the threshold D, each cluster's own, as an external lease met it.
	"admission_rejection_rate": weighted("external leases"),
	"admission_threshold_s":    weighted("external leases"),
}

func weighted(over string) string { return "weighted by the " + over }

// aggregationRules lists the metrics with a rule, sorted.
func aggregationRules() string {
	var out []string
	for n := range aggregation {
		out = append(out, n)
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
