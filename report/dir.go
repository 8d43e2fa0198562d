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
	if err := checkReports(reports); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: creating %s: %w", dir, err)
	}
	if len(reports) == 1 {
		return writeRun(dir, reports[0])
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
		if err := writeRun(sub, r); err != nil {
			return err
		}
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

// writeRun writes the files of one run into dir.
func writeRun(dir string, r *Report) error {
	steps := []runFile{
		{FileJSON, func(p string) error {
			return writeFile(p, func(w io.Writer) error { return WriteJSON(w, r) })
		}},
		{FileLeases, func(p string) error {
			return writeFile(p, func(w io.Writer) error { return WriteCSV(w, r) })
		}},
		{FileGanttSVG, func(p string) error { return WriteGantt(p, r) }},
		{FileGanttPNG, func(p string) error { return WriteGantt(p, r) }},
		{FileUtilisationSVG, func(p string) error { return WriteUtilisation(p, r) }},
		{FileUtilisationPNG, func(p string) error { return WriteUtilisation(p, r) }},
	}
	if len(r.Power) > 0 {
		steps = append(steps, runFile{FilePowerSVG, func(p string) error { return WritePower(p, r) }},
			runFile{FilePowerPNG, func(p string) error { return WritePower(p, r) }})
	}
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
