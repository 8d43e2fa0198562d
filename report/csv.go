package report

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"strings"
)

// csvHeader names the columns of WriteCSV, in the JSON names of Lease.
var csvHeader = []string{
	"id", "name", "kind", "class", "origin", "vms", "state", "submit_s",
	"start_s", "end_s", "hosts", "preemptions", "overhead_s", "reason",
	"requested_s", "real_s",
}

// WriteCSV writes one row per lease of r after a header row naming the
// columns as in the JSON. Hosts are joined with ';'; a start or end that
// never happened is an empty cell; numbers are written in their shortest
// exact form. A federation's report (one with Clusters) has a last
// column, cluster, the lease's cluster ("" for a lease the gateway
// rejected). It returns ErrNilReport or the writer's error.
func WriteCSV(w io.Writer, r *Report) error {
	if r == nil {
		return ErrNilReport
	}
	federated := len(r.Clusters) > 0
	cw := csv.NewWriter(w)
	header := csvHeader
	if federated {
		header = append(slices.Clip(header), "cluster")
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for i := range r.Leases {
		row := csvRow(&r.Leases[i])
		if federated {
			row = append(row, r.Leases[i].Cluster)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvRow returns the cells of one lease, in the order of csvHeader.
func csvRow(l *Lease) []string {
	hosts := make([]string, len(l.Hosts))
	for i, h := range l.Hosts {
		hosts[i] = strconv.Itoa(h)
	}
	return []string{
		strconv.FormatUint(l.ID, 10), l.Name, l.Kind, l.Class, l.Origin,
		strconv.Itoa(l.VMs), l.State, formatFloat(l.SubmitS),
		formatOptional(l.StartS), formatOptional(l.EndS),
		strings.Join(hosts, ";"), strconv.Itoa(l.Preemptions),
		formatFloat(l.OverheadS), l.Reason,
		formatFloat(l.RequestedS), formatFloat(l.RealS),
	}
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func formatOptional(f *float64) string {
	if f == nil {
		return ""
	}
	return formatFloat(*f)
}
