package report

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var runFiles = []string{FileJSON, FileLeases, FileGanttSVG, FileGanttPNG, FileUtilisationSVG, FileUtilisationPNG}

// checkRunDir checks the files of one run in dir: all present, JSON that
// decodes, SVGs that look like SVG, PNGs that decode at their size.
func checkRunDir(t *testing.T, dir string, ganttHeightPx int) {
	t.Helper()
	for _, f := range runFiles {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Error(err)
			continue
		}
		switch filepath.Ext(f) {
		case ".json":
			var r Report
			if err := json.Unmarshal(data, &r); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		case ".csv":
			if !strings.HasPrefix(string(data), "id,name,") {
				t.Errorf("%s starts %.20q", f, data)
			}
		case ".svg":
			if !bytes.HasPrefix(data, []byte("<?xml")) && !bytes.HasPrefix(data, []byte("<svg")) {
				t.Errorf("%s starts %.20q", f, data)
			}
		case ".png":
			// 12 inches wide at 96 dpi; the utilisation plot is 4 inches high.
			want := image.Pt(1152, 384)
			if strings.HasPrefix(f, "gantt") {
				want.Y = ganttHeightPx
			}
			checkPNG(t, filepath.Join(dir, f), want)
		}
	}
}

func checkPNG(t *testing.T, path string, size image.Point) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if got := img.Bounds().Size(); got != size {
		t.Errorf("%s is %v, want %v", path, got, size)
	}
	return img
}

func TestWriteDirOneRun(t *testing.T) {
	tests := []struct {
		name   string
		report *Report
		gantt  int // expected Gantt height in pixels
	}{
		{"hand report", handReport("a"), 384}, // 2 rows: the 4 inch minimum
		{"empty report", &Report{}, 384},      // "no data" plots
		{"hosts but no data", &Report{Hosts: 64}, 384},
		{"512 hosts", bigReport(2000, 512, 7), 1344}, // 256 rows: the 14 inch maximum
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out", "run")
			if err := WriteDir(dir, tt.report); err != nil {
				t.Fatal(err)
			}
			checkRunDir(t, dir, tt.gantt)
			entries, _ := os.ReadDir(dir)
			if len(entries) != len(runFiles) {
				t.Errorf("%d files in %s, want %d", len(entries), dir, len(runFiles))
			}
		})
	}
}

func TestWriteDirSweep(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	reports := []*Report{handReport("suspend"), handReport("cancel/now"), {}, handReport("suspend")}
	if err := WriteDir(dir, reports...); err != nil {
		t.Fatal(err)
	}
	// "cancel/now" is made safe, the unnamed third run numbered, and the
	// second "suspend" gets a suffix.
	for _, sub := range []string{"suspend", "cancel_now", "run-3", "suspend-2"} {
		checkRunDir(t, filepath.Join(dir, sub), 384)
	}
	data, err := os.ReadFile(filepath.Join(dir, FileSummaryJSON))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct{ Runs []Report }
	if err := json.Unmarshal(data, &sum); err != nil || len(sum.Runs) != 4 {
		t.Errorf("summary.json: %d runs, err %v", len(sum.Runs), err)
	}
	txt, err := os.ReadFile(filepath.Join(dir, FileSummaryTxt))
	if err != nil {
		t.Fatal(err)
	}
	header := strings.Fields(strings.SplitN(string(txt), "\n", 2)[0])
	want := []string{"metric", "suspend", "cancel/now", "run", "3", "suspend"}
	if strings.Join(header, " ") != strings.Join(want, " ") {
		t.Errorf("summary header = %q, want %q", header, want)
	}
}

func TestWriteDirErrorNamesPath(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(blocker, "out")
	err := WriteDir(target, handReport("a"))
	if err == nil || !strings.Contains(err.Error(), target) {
		t.Errorf("err = %v, want one naming %s", err, target)
	}
}

func TestRunDirName(t *testing.T) {
	tests := []struct {
		name string
		i    int
		want string
	}{
		{"suspend", 0, "suspend"},
		{"pemp alpha=5", 1, "pemp_alpha_5"},
		{"../etc", 0, ".._etc"},
		{"..", 4, "run-5"},
		{"", 0, "run-1"},
		{"é/ü", 2, "run-3"}, // nothing usable is left
		{strings.Repeat("x", 100), 0, strings.Repeat("x", 64)},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := RunDirName(tt.name, tt.i); got != tt.want {
				t.Errorf("RunDirName(%q, %d) = %q, want %q", tt.name, tt.i, got, tt.want)
			}
		})
	}
}

// TestWriteFederationDir: two federation runs, each in its directory
// with the federation's report.json and leases.csv (with the cluster
// column) and each cluster's run files; summary files at the top, none
// per run; cluster reports that do not match the runs are refused.
func TestWriteFederationDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fed := func(name string) *Report {
		r := handReport(name)
		r.Clusters = []ClusterReport{{Name: "C1"}, {Name: "C2"}}
		for i := range r.Leases {
			r.Leases[i].Cluster = []string{"C1", "C2"}[i%2]
		}
		return r
	}
	overall := []*Report{fed("rr"), fed("pap-rtdp")}
	clusters := [][]*Report{{handReport("C1"), handReport("C2")}, {handReport("C1"), handReport("C2")}}
	if err := WriteFederationDir(dir, overall, clusters); err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"rr", "pap-rtdp"} {
		for _, c := range []string{"C1", "C2"} {
			checkRunDir(t, filepath.Join(dir, run, c), 384)
		}
		csv, err := os.ReadFile(filepath.Join(dir, run, FileLeases))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
		if len(lines) != len(overall[0].Leases)+1 || !strings.HasSuffix(lines[0], ",cluster") || !strings.HasSuffix(lines[1], ",C1") || !strings.HasSuffix(lines[2], ",C2") {
			t.Errorf("%s/leases.csv:\n%s", run, csv)
		}
		if _, err := os.Stat(filepath.Join(dir, run, FileJSON)); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(filepath.Join(dir, run, FileSummaryTxt)); err == nil {
			t.Errorf("%s: a summary of its clusters was written", run)
		}
	}
	for _, f := range []string{FileSummaryJSON, FileSummaryTxt} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if err := WriteFederationDir(t.TempDir(), overall, clusters[:1]); err == nil {
		t.Error("two runs with the clusters of one: no error")
	}
}
