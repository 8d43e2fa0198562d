package report

import (
	"bytes"
	"slices"
	"testing"
)

// TestWriteTableAdmission: the admission rows appear when some report has
// them, "-" for the others, one row per rejection reason of any report.
func TestWriteTableAdmission(t *testing.T) {
	a := handReport("accept-all")
	b := handReport("pacp")
	b.Metrics.AdmissionViolationRate, b.Metrics.AdmissionRejectionRate, b.Metrics.AdmissionThresholdS = ptr(72.42), ptr(72.37), ptr(30)
	b.Metrics.ExternalRejections = map[string]int{"admission-limit": 26065, "deadline-interval-too-small": 18}
	var buf bytes.Buffer
	if err := WriteTable(&buf, a, b); err != nil {
		t.Fatal(err)
	}
	rows := parseTable(t, buf.String())
	for label, want := range map[string][]string{
		"admission violation rate (%)":                   {"-", "72.42"},
		"admission rejection rate (%)":                   {"-", "72.37"},
		"admission threshold D (s)":                      {"-", "30.00"},
		"external rejected, admission-limit":             {"-", "26065"},
		"external rejected, deadline-interval-too-small": {"-", "18"},
	} {
		if got := rows[label]; !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", label, got, want)
		}
	}
	buf.Reset()
	if err := WriteTable(&buf, a); err != nil {
		t.Fatal(err)
	}
	if _, ok := parseTable(t, buf.String())["admission violation rate (%)"]; ok {
		t.Error("admission rows without admission")
	}
}
