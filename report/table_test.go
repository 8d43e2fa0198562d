package report

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// parseTable maps each row label of a WriteTable output to its cells.
// Labels and cells are separated by at least two spaces.
func parseTable(t *testing.T, out string) map[string][]string {
	t.Helper()
	sep := regexp.MustCompile(`\s{2,}`)
	rows := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		fields := sep.Split(line, -1)
		rows[fields[0]] = fields[1:]
	}
	return rows
}

func TestWriteTableSideBySide(t *testing.T) {
	a := handReport("suspend")
	b := handReport("cancel")
	b.Metrics.Utilisation = 40      // shown as 40.00
	b.Metrics.PreemptedByOp = nil   // every op shows 0
	b.Metrics.EnergyKWh = ptr(12.5) // energy row appears, "-" for a
	b.Metrics.PreemptionSearch = map[string]int{"exact": 7, "greedy": 2}
	var buf bytes.Buffer
	if err := WriteTable(&buf, a, b); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	rows := parseTable(t, out)
	tests := []struct {
		label string
		want  []string
	}{
		{"metric", []string{"suspend", "cancel"}},
		{"hosts", []string{"2", "2"}},
		{"utilisation (%)", []string{"62.50", "40.00"}},
		{"utilisation, overhead-adjusted (%)", []string{"97.25", "97.25"}},
		{"external rejection rate (%)", []string{"100.00", "100.00"}},
		{"preempted by suspend (leases)", []string{"1", "0"}},
		{"preempted by suspend (VMs)", []string{"2", "0"}},
		{"preempted by cancel (VMs)", []string{"0", "0"}},
		{"preempted by requeue (leases)", []string{"0", "0"}},
		{"preemption searches, exact", []string{"3", "7"}},
		{"preemption searches, heuristic", []string{"1", "0"}},
		{"preemption searches, greedy", []string{"0", "2"}}, // unknown keys follow
		{"ART (s)", []string{"4500.00", "4500.00"}},
		{"AWRT (s)", []string{"4500.12", "4500.12"}}, // 4500.125 rounds half to even
		{"makespan (s)", []string{"7200.00", "7200.00"}},
		{"energy (kWh)", []string{"-", "12.50"}},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			if got, ok := rows[tt.label]; !ok || !slices.Equal(got, tt.want) {
				t.Errorf("row %q = %q (present %v), want %q\n%s", tt.label, got, ok, tt.want, out)
			}
		})
	}
	if _, ok := rows["violation rate (%)"]; ok {
		t.Errorf("violation rate shown though no report has it:\n%s", out)
	}
	// Right-aligned numbers: every line ends in the same column.
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		if len(l) != len(lines[0]) {
			t.Errorf("line %q is %d wide, header %d", l, len(l), len(lines[0]))
		}
	}
}

func TestWriteTableColumns(t *testing.T) {
	withVR := handReport("vr")
	withVR.Metrics.ViolationRate = ptr(3.25)
	tests := []struct {
		name    string
		reports []*Report
		want    map[string][]string // rows that must be present
		absent  []string            // rows that must not be
	}{
		{"one report", []*Report{handReport("only")},
			map[string][]string{"metric": {"only"}, "utilisation (%)": {"62.50"}},
			[]string{"energy (kWh)", "violation rate (%)"}},
		{"unnamed runs are numbered", []*Report{{}, {Name: "b"}},
			map[string][]string{"metric": {"run 1", "b"}, "leases": {"0", "0"}},
			nil},
		{"violation rate when one has it", []*Report{{}, withVR},
			map[string][]string{"violation rate (%)": {"-", "3.25"}},
			[]string{"energy (kWh)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteTable(&buf, tt.reports...); err != nil {
				t.Fatal(err)
			}
			rows := parseTable(t, buf.String())
			for label, want := range tt.want {
				if got := rows[label]; !slices.Equal(got, want) {
					t.Errorf("row %q = %q, want %q\n%s", label, got, want, buf.String())
				}
			}
			for _, label := range tt.absent {
				if _, ok := rows[label]; ok {
					t.Errorf("row %q present:\n%s", label, buf.String())
				}
			}
		})
	}
}
