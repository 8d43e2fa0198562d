package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Files WriteDir writes for one run.
const (
	FileJSON           = "report.json"
	FileLeases         = "leases.csv"
	FileGanttSVG       = "gantt.svg"
	FileGanttPNG       = "gantt.png"
	FileUtilisationSVG = "utilisation.svg"
	FileUtilisationPNG = "utilisation.png"
	// FilePowerSVG and FilePowerPNG are written for runs that model energy.
	FilePowerSVG = "power.svg"
	FilePowerPNG = "power.png"
	// FileSummaryJSON and FileSummaryTxt are written at the top of a sweep.
	FileSummaryJSON = "summary.json"
	FileSummaryTxt  = "summary.txt"
)

// WriteDir creates dir (and its parents) and writes the report files into
// it. For one report: report.json, leases.csv, gantt.svg, gantt.png,
// utilisation.svg and utilisation.png, and power.svg and power.png when
// the run modelled energy. For several (a sweep): those files
// in one subdirectory per report, named by RunDirName, plus summary.json
// (WriteJSON of all runs) and summary.txt (WriteTable of all runs). It
// returns ErrNoReports, ErrNilReport, or the first error writing a file,
// wrapped with its path.
func WriteDir(dir string, reports ...*Report) error {
	return writeRuns(dir, reports, false, func(sub string, i int) error { return writeRun(sub, reports[i]) })
}

// WriteFederationDir writes federation runs as WriteDir writes runs:
// for each, the federation's report.json and leases.csv (every
// cluster's leases with their cluster, and the gateway's rejections),
// and each cluster's run files (WriteDir's for one report) in a
// directory named after the cluster (RunDirName). clusters[i] are the
// reports of overall[i]'s clusters, in its order. With several runs,
// each goes in a directory of its own, and summary.json and summary.txt
// compare their overall figures.
func WriteFederationDir(dir string, overall []*Report, clusters [][]*Report) error {
	if len(clusters) != len(overall) {
		return fmt.Errorf("report: %d federation runs with cluster reports for %d", len(overall), len(clusters))
	}
	for _, cs := range clusters {
		if err := checkReports(cs); err != nil {
			return err
		}
	}
	return writeRuns(dir, overall, false, func(sub string, i int) error {
		if err := writeData(sub, overall[i]); err != nil {
			return err
		}
		return writeRuns(sub, clusters[i], true, func(csub string, j int) error { return writeRun(csub, clusters[i][j]) })
	})
}

// writeRuns creates dir and calls write for each run's directory: dir
// itself for a single run, else a subdirectory named by RunDirName (made
// unique), with summary.json and summary.txt over the runs at the top.
// parts gives every run a subdirectory and writes no summary (the
// clusters of a federation run).
func writeRuns(dir string, reports []*Report, parts bool, write func(sub string, i int) error) error {
	if err := checkReports(reports); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: creating %s: %w", dir, err)
	}
	if len(reports) == 1 && !parts {
		return write(dir, 0)
	}
	used := map[string]bool{}
	for i, r := range reports {
		name := RunDirName(r.Name, i)
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s-%d", RunDirName(r.Name, i), n)
		}
		used[name] = true
		sub := filepath.Join(dir, name)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return fmt.Errorf("report: creating %s: %w", sub, err)
		}
		if err := write(sub, i); err != nil {
			return err
		}
	}
	if parts {
		return nil
	}
	if err := writeFile(filepath.Join(dir, FileSummaryJSON), func(w io.Writer) error {
		return WriteJSON(w, reports...)
	}); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, FileSummaryTxt), func(w io.Writer) error {
		return WriteTable(w, reports...)
	})
}

// runFile is a file of one run and how it is written.
type runFile struct {
	file  string
	write func(path string) error
}

// writeRun writes the files of one run into dir: its data, then its
// plots.
func writeRun(dir string, r *Report) error {
	if err := writeData(dir, r); err != nil {
		return err
	}
	steps := []runFile{
		{FileGanttSVG, func(p string) error { return WriteGantt(p, r) }},
		{FileGanttPNG, func(p string) error { return WriteGantt(p, r) }},
		{FileUtilisationSVG, func(p string) error { return WriteUtilisation(p, r) }},
		{FileUtilisationPNG, func(p string) error { return WriteUtilisation(p, r) }},
	}
	if len(r.Power) > 0 {
		steps = append(steps, runFile{FilePowerSVG, func(p string) error { return WritePower(p, r) }},
			runFile{FilePowerPNG, func(p string) error { return WritePower(p, r) }})
	}
	return writeFiles(dir, steps)
}

// writeData writes r's report.json and leases.csv into dir.
func writeData(dir string, r *Report) error {
	return writeFiles(dir, []runFile{
		{FileJSON, func(p string) error {
			return writeFile(p, func(w io.Writer) error { return WriteJSON(w, r) })
		}},
		{FileLeases, func(p string) error {
			return writeFile(p, func(w io.Writer) error { return WriteCSV(w, r) })
		}},
	})
}

func writeFiles(dir string, steps []runFile) error {
	for _, s := range steps {
		if err := s.write(filepath.Join(dir, s.file)); err != nil {
			return err
		}
	}
	return nil
}

// RunDirName is the subdirectory WriteDir gives the i-th run (from 0) of a
// sweep: name with every character other than ASCII letters, digits, '.',
// '-' and '_' replaced by '_', at most 64 bytes, or "run-<i+1>" when
// nothing usable is left (empty, or only dots). Runs whose names collide
// get "-2", "-3", ... appended by WriteDir.
func RunDirName(name string, i int) string {
	var b strings.Builder
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '.', c == '-', c == '_':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 64 {
		s = s[:64]
	}
	if strings.Trim(s, "._") == "" {
		return fmt.Sprintf("run-%d", i+1)
	}
	return s
}
