package experiment

import (
	"slices"
	"testing"

	"github.com/bora-sched/bora/report"
)

// TestAdmissionMetricNames: the admission metrics are metrics of
// experiment files, and a run without admission has none of them.
func TestAdmissionMetricNames(t *testing.T) {
	names := MetricNames()
	for _, n := range []string{"admission_violation_rate", "admission_rejection_rate", "admission_threshold_s", "external_completed_percent"} {
		if !slices.Contains(names, n) {
			t.Errorf("%s is not a metric name (%v)", n, names)
		}
	}
	vr := 12.5
	if v := metricValues(report.Metrics{AdmissionViolationRate: &vr}); v["admission_violation_rate"] != 12.5 {
		t.Errorf("values %v", v)
	}
	if _, ok := metricValues(report.Metrics{})["admission_violation_rate"]; ok {
		t.Error("a run without admission has admission_violation_rate")
	}
}
