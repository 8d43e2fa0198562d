package report

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
)

// Known keys of Metrics.PreemptedByOp and Metrics.PreemptionSearch, in the
// order the table lists them; they are always shown (as 0 when absent).
// Other keys found in the reports follow, sorted.
var (
	preemptionOps    = []string{"cancel", "suspend", "migrate", "requeue"}
	preemptionSearch = []string{"exact", "heuristic"}
)

// tableRow is one metric: its label (with unit) and one cell per report.
type tableRow struct {
	label string
	cells []string
}

// WriteTable writes the metrics of reports as a table, one row per metric
// (the label gives the unit) and one column per report headed by its Name
// ("run N" when empty). Numbers are right-aligned; rates and times have two
// decimals. The energy and violation-rate rows appear only when some report
// has them ("-" for the others). It returns ErrNoReports, ErrNilReport or
// the writer's error.
func WriteTable(w io.Writer, reports ...*Report) error {
	if err := checkReports(reports); err != nil {
		return err
	}
	rows := tableRows(reports)
	width := 0
	for _, row := range rows {
		width = max(width, len(row.label))
	}
	// The numeric columns go through a right-aligning tabwriter; the
	// labels are padded by hand so that they stay left-aligned.
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range rows {
		fmt.Fprintf(tw, "%s\t\n", strings.Join(row.cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	sc := bufio.NewScanner(&buf)
	for i := 0; sc.Scan(); i++ {
		line := fmt.Sprintf("%-*s%s", width, rows[i].label, sc.Text())
		if _, err := fmt.Fprintln(w, strings.TrimRight(line, " ")); err != nil {
			return err
		}
	}
	return sc.Err()
}

// tableRows builds the header and the metric rows of WriteTable.
func tableRows(reports []*Report) []tableRow {
	ms := make([]*Metrics, len(reports))
	header := tableRow{label: "metric"}
	hosts := tableRow{label: "hosts"}
	source := tableRow{label: "cluster from"}
	for i, r := range reports {
		ms[i] = &r.Metrics
		header.cells = append(header.cells, columnName(r, i))
		hosts.cells = append(hosts.cells, fmt.Sprint(r.Hosts))
		source.cells = append(source.cells, cmp.Or(r.Cluster.Source, "-"))
	}
	in := func(label string, f func(*Metrics) int) tableRow {
		return metricRow(ms, label, func(m *Metrics) string { return fmt.Sprint(f(m)) })
	}
	fl := func(label string, f func(*Metrics) float64) tableRow {
		return metricRow(ms, label, func(m *Metrics) string { return fmt.Sprintf("%.2f", f(m)) })
	}
	rows := []tableRow{header, hosts, source,
		in("leases", func(m *Metrics) int { return m.Leases }),
		in("completed", func(m *Metrics) int { return m.Completed }),
		fl("local rejection rate (%)", func(m *Metrics) float64 { return m.LocalRejectionRate }),
		fl("external rejection rate (%)", func(m *Metrics) float64 { return m.ExternalRejectionRate }),
		fl("external completed (%)", func(m *Metrics) float64 { return m.ExternalCompletedPercent }),
		fl("utilisation (%)", func(m *Metrics) float64 { return m.Utilisation }),
		fl("utilisation, overhead-adjusted (%)", func(m *Metrics) float64 { return m.UtilisationOverheadAdj }),
		in("preempted leases", func(m *Metrics) int { return m.PreemptedLeases }),
		in("preempted VMs", func(m *Metrics) int { return m.PreemptedVMs }),
	}
	rows = append(rows, byOpRows(ms)...)
	rows = append(rows,
		fl("preemption overhead (s)", func(m *Metrics) float64 { return m.PreemptionOverheadS }))
	rows = append(rows, searchRows(ms)...)
	rows = append(rows,
		fl("ART (s)", func(m *Metrics) float64 { return m.ARTS }),
		fl("AWRT (s)", func(m *Metrics) float64 { return m.AWRTS }),
		fl("makespan (s)", func(m *Metrics) float64 { return m.MakespanS }),
		fl("migration rate (%)", func(m *Metrics) float64 { return m.MigrationRate }),
		in("deadline misses", func(m *Metrics) int { return m.DeadlineMisses }),
	)
	rows = append(rows, optionalRows(ms)...)
	return append(rows, fl("wall time (s)", func(m *Metrics) float64 { return m.WallSeconds }))
}

// metricRow applies cell to every report's metrics.
func metricRow(ms []*Metrics, label string, cell func(*Metrics) string) tableRow {
	row := tableRow{label: label, cells: make([]string, len(ms))}
	for i, m := range ms {
		row.cells[i] = cell(m)
	}
	return row
}

// byOpRows lists preempted leases and VMs per preemption operation.
func byOpRows(ms []*Metrics) []tableRow {
	var rows []tableRow
	for _, op := range orderedKeys(preemptionOps, ms, func(m *Metrics) []string { return mapKeys(m.PreemptedByOp) }) {
		rows = append(rows,
			metricRow(ms, "preempted by "+op+" (leases)", func(m *Metrics) string { return fmt.Sprint(m.PreemptedByOp[op].Leases) }),
			metricRow(ms, "preempted by "+op+" (VMs)", func(m *Metrics) string { return fmt.Sprint(m.PreemptedByOp[op].VMs) }),
		)
	}
	return rows
}

// searchRows lists how many preemption decisions used each search.
func searchRows(ms []*Metrics) []tableRow {
	var rows []tableRow
	for _, s := range orderedKeys(preemptionSearch, ms, func(m *Metrics) []string { return mapKeys(m.PreemptionSearch) }) {
		rows = append(rows, metricRow(ms, "preemption searches, "+s,
			func(m *Metrics) string { return fmt.Sprint(m.PreemptionSearch[s]) }))
	}
	return rows
}

// optionalRows returns the energy and violation-rate rows, each only when
// some report has the metric.
func optionalRows(ms []*Metrics) []tableRow {
	opt := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.2f", *p)
	}
	var rows []tableRow
	if slices.ContainsFunc(ms, func(m *Metrics) bool { return m.EnergyKWh != nil }) {
		rows = append(rows, metricRow(ms, "energy (kWh)", func(m *Metrics) string { return opt(m.EnergyKWh) }))
	}
	if slices.ContainsFunc(ms, func(m *Metrics) bool { return m.ViolationRate != nil }) {
		rows = append(rows, metricRow(ms, "violation rate (%)", func(m *Metrics) string { return opt(m.ViolationRate) }))
	}
	return append(rows, admissionRows(ms, opt)...)
}

// admissionRows returns the admission metrics' rows (docs/models.md §4)
// when some report has them: the violation rate, the share rejected by
// the admission stage, D, and one row per reason external leases were
// rejected for ("-" for a report without admission).
func admissionRows(ms []*Metrics, opt func(*float64) string) []tableRow {
	if !slices.ContainsFunc(ms, func(m *Metrics) bool { return m.AdmissionViolationRate != nil }) {
		return nil
	}
	rows := []tableRow{
		metricRow(ms, "admission violation rate (%)", func(m *Metrics) string { return opt(m.AdmissionViolationRate) }),
		metricRow(ms, "admission rejection rate (%)", func(m *Metrics) string { return opt(m.AdmissionRejectionRate) }),
		metricRow(ms, "admission threshold D (s)", func(m *Metrics) string { return opt(m.AdmissionThresholdS) }),
	}
	for _, r := range orderedKeys(nil, ms, func(m *Metrics) []string { return mapKeys(m.ExternalRejections) }) {
		rows = append(rows, metricRow(ms, "external rejected, "+r, func(m *Metrics) string {
			if m.AdmissionViolationRate == nil {
				return "-"
			}
			return fmt.Sprint(m.ExternalRejections[r])
		}))
	}
	return rows
}

// orderedKeys returns known followed by the other keys of all reports,
// sorted.
func orderedKeys(known []string, ms []*Metrics, keys func(*Metrics) []string) []string {
	var extra []string
	for _, m := range ms {
		for _, k := range keys(m) {
			if !slices.Contains(known, k) && !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	sort.Strings(extra)
	return append(slices.Clone(known), extra...)
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// columnName is the header of report i's column.
func columnName(r *Report, i int) string {
	if r.Name == "" {
		return fmt.Sprintf("run %d", i+1)
	}
	return r.Name
}
