// Package report turns the outcome of a simulation run (a Report) into the
// files a researcher reads: the metrics of docs/models.md §7 as JSON and
// as a human table, one CSV row per lease, a Gantt chart of what ran where,
// and a plot of utilisation over time.
//
// A sweep (several runs of the same trace, e.g. one per preemption policy)
// is written side by side: WriteJSON wraps the runs in {"runs": [...]},
// WriteTable puts one column per run, and WriteDir writes one subdirectory
// per run plus a summary.
//
// Writers never panic on an empty report: a run with no leases or no
// samples still yields valid JSON and CSV and plots titled "no data".
//
// The plots use gonum.org/v1/plot; the format follows the file extension
// (.svg or .png). Gantt charts of large runs are kept readable and cheap:
// at most MaxGanttRows rows are drawn (hosts are merged into bands of
// consecutive hosts beyond that), and bars closer than about a pixel are
// drawn as one rectangle; see WriteGantt.
package report
