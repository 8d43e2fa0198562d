package report

import (
	"encoding/json"
	"io"
)

// sweepJSON is the JSON form of several reports.
type sweepJSON struct {
	Runs []*Report `json:"runs"`
}

// WriteJSON writes reports as indented JSON: one report as that object,
// several (a sweep) as {"runs": [...]}. Nil slices and maps are written as
// [] and {} so consumers need not special-case empty runs; Gantt and
// Utilisation are not part of the JSON. It returns ErrNoReports,
// ErrNilReport, or the error of encoding (e.g. a NaN metric) or writing.
func WriteJSON(w io.Writer, reports ...*Report) error {
	if err := checkReports(reports); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if len(reports) == 1 {
		return enc.Encode(jsonView(reports[0]))
	}
	s := sweepJSON{Runs: make([]*Report, len(reports))}
	for i, r := range reports {
		s.Runs[i] = jsonView(r)
	}
	return enc.Encode(s)
}

// jsonView returns a shallow copy of r whose nil slices and maps are empty
// ones, so that they encode as [] and {} rather than null.
func jsonView(r *Report) *Report {
	v := *r
	if v.Options == nil {
		v.Options = map[string]string{}
	}
	if v.Metrics.PreemptedByOp == nil {
		v.Metrics.PreemptedByOp = map[string]OpCount{}
	}
	if v.Metrics.PreemptionSearch == nil {
		v.Metrics.PreemptionSearch = map[string]int{}
	}
	v.Leases = make([]Lease, len(r.Leases))
	copy(v.Leases, r.Leases)
	for i := range v.Leases {
		if v.Leases[i].Hosts == nil {
			v.Leases[i].Hosts = []int{}
		}
	}
	return &v
}
