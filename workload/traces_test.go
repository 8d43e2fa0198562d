package workload

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

const tracesDir = "../testdata/traces"

// TestSDSCBlue reads the shipped SWF trace. The expected numbers come from
// awk over the file (5,545 lines, no comments):
//
//	awk '!($4<0 && $11==5){n++; v+=$8; s+=$8*$9; if($8>m)m=$8} END{print n, v, s, m}' sdsc-blue-30days.swf
//	  -> 5108 41334 785463420 140
//	awk '$4<0 && $11==5' sdsc-blue-30days.swf | wc -l   -> 437 (cancelled while queued)
//
// The largest job asks for 140 nodes (the source's description says "up to
// 144"; the file's maximum of field 8 is 140; docs/formats.md §6).
func TestSDSCBlue(t *testing.T) {
	tr, err := ReadFile(filepath.Join(tracesDir, "sdsc-blue-30days.swf"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Requests) != 5108 || tr.Skipped != 437 {
		t.Fatalf("%d leases, %d skipped; want 5108 and 437", len(tr.Requests), tr.Skipped)
	}
	var vms, maxVMs int
	var vmSeconds int64
	for _, r := range tr.Requests {
		if r.Kind != scheduler.BestEffort || r.Origin != scheduler.External || r.Class != scheduler.Suspendable ||
			r.CPU != 100 || r.Memory != 1024 || r.Real < time.Second || r.Real > r.Duration {
			t.Fatalf("lease %+v is not a best-effort external suspendable 1-core 1024 MB lease with 1 s <= real <= requested", r)
		}
		vms += r.VMs
		maxVMs = max(maxVMs, r.VMs)
		vmSeconds += int64(r.VMs) * int64(r.Duration/time.Second)
	}
	if vms != 41334 || maxVMs != 140 || vmSeconds != 785463420 {
		t.Errorf("VMs %d, max %d, requested VM-seconds %d; want 41334, 140, 785463420", vms, maxVMs, vmSeconds)
	}
	for _, s := range tr.Skips {
		if s.Reason != SkipCancelled {
			t.Errorf("skip %+v, want only %s", s, SkipCancelled)
		}
	}
	allValid(t, tr)
}

// TestLocalWork reads each shipped local-work file. Expected numbers:
//
//	awk '{n++; v+=$5; s+=$5*$3; if($2==-1)be++} END{print n, v, s, be+0}' FILE
//
// (every line has 10 fields, no comments, start >= request, 1 core, 1024 MB).
func TestLocalWork(t *testing.T) {
	tests := []struct {
		file          string
		leases, vms   int
		vmSeconds     int64
		minVMs, maxVM int
	}{
		{"local-work_05-dur_3h-size_2medium.lwf", 47, 1749, 18833908, 25, 47},
		{"local-work_15-dur_1h-size_1small.lwf", 1242, 15450, 55698876, 1, 24},
		{"local-work_15-dur_3h-size_2medium.lwf", 141, 5185, 55447113, 25, 48},
		{"local-work_15-dur_3h-size_3large.lwf", 85, 5200, 56007843, 49, 72},
		{"local-work_30-dur_3h-size_2medium.lwf", 291, 10431, 112624439, 25, 48},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			tr, err := ReadFile(filepath.Join(tracesDir, tc.file), DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Requests) != tc.leases {
				t.Fatalf("%d leases, want %d", len(tr.Requests), tc.leases)
			}
			vms, lo, hi := 0, 1<<30, 0
			var vmSeconds int64
			for i, r := range tr.Requests {
				if r.Kind != scheduler.AdvanceReservation || r.Origin != scheduler.Local || r.Class != scheduler.NonPreemptable ||
					r.CPU != 100 || r.Memory != 1024 || r.Image != "NONE.img" {
					t.Fatalf("lease %+v is not a local non-preemptable AR of 1 core, 1024 MB", r)
				}
				if i > 0 && r.Arrival < tr.Requests[i-1].Arrival {
					t.Fatalf("lease %d arrives before its predecessor", i)
				}
				vms += r.VMs
				lo, hi = min(lo, r.VMs), max(hi, r.VMs)
				vmSeconds += int64(r.VMs) * int64(r.Duration/time.Second)
			}
			if vms != tc.vms || vmSeconds != tc.vmSeconds || lo != tc.minVMs || hi != tc.maxVM {
				t.Errorf("VMs %d (min %d, max %d), VM-seconds %d; want %d (%d, %d), %d",
					vms, lo, hi, vmSeconds, tc.vms, tc.minVMs, tc.maxVM, tc.vmSeconds)
			}
			allValid(t, tr)
		})
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name  string
		path  string
		names []string // expected lease names, in arrival order
	}{
		// Jobs 1, 2, 3 arrive at 20, 10, 10: sorted to 2, 3 (stable), 1.
		{"swf sorted", write("a.swf", "1 20 0 5 1 -1 -1 1 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n"+
			"2 10 0 5 1 -1 -1 1 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n3 10 0 5 1 -1 -1 1 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n"), []string{"2", "3", "1"}},
		{"lwf lines", write("l.lwf", "50 -1 60 60 1 1 1024 0 'x' 1\n5 -1 60 60 1 1 1024 0 'x' 1\n"), []string{"2", "1"}},
		{"xml sniffed in .lwf", write("x.lwf", "\n  "+lwfDoc(lwfReq("30", `id="p"`, `<start/><duration time="60"/>`)+
			lwfReq("3", `id="q"`, `<start/><duration time="60"/>`))), []string{"q", "p"}},
		{"xml", write("x.xml", lwfDoc(lwfReq("3", `id="q"`, `<start/><duration time="60"/>`))), []string{"q"}},
		{"json", write("j.json", `[{"name": "late", "arrival": 9, "duration": 1}, {"name": "early", "duration": 1}]`), []string{"early", "late"}},
		{"yaml", write("y.YML", "- {name: late, arrival: 9, duration: 1}\n- {name: early, duration: 1}\n"), []string{"early", "late"}},
		{"sample yaml", "testdata/sample.yaml", []string{"nightly-build", "batch-sweep", "debug-shell", "report", "guest-job"}},
		{"sample lwf", "testdata/sample.lwf", []string{"be1", "ar1", "im1", "dl1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ReadFile(tc.path, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range tr.Requests {
				got = append(got, r.Name)
			}
			if len(got) != len(tc.names) {
				t.Fatalf("names %v, want %v", got, tc.names)
			}
			for i := range got {
				if got[i] != tc.names[i] {
					t.Fatalf("names %v, want %v", got, tc.names)
				}
			}
		})
	}
	if _, err := ReadFile(write("w.csv", ""), DefaultOptions()); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("csv: error %v, want ErrUnknownFormat", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.swf"), DefaultOptions()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error %v, want os.ErrNotExist", err)
	}
	var pe *ParseError
	if _, err := ReadFile(write("bad.swf", "1 2 3\n"), DefaultOptions()); !errors.As(err, &pe) || pe.File != filepath.Join(dir, "bad.swf") || pe.Line != 1 {
		t.Errorf("bad swf: error %v, want a ParseError at %s:1", err, filepath.Join(dir, "bad.swf"))
	}
}
