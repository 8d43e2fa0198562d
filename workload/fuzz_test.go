package workload

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/bora-sched/bora/scheduler"
)

// fuzzOptions are the option sets every fuzz input is read with.
func fuzzOptions() []Options {
	def := DefaultOptions()
	odd := DefaultOptions()
	odd.SuspensionOff = true
	odd.ForceOrigin = scheduler.Local
	return []Options{def, odd, {}}
}

// fuzzRead runs read on data with each option set: it must not panic, a
// trace's requests must all validate, and an error must be a *ParseError
// naming the file.
func fuzzRead(t *testing.T, data []byte, read func(r *bytes.Reader, opt Options) (*Trace, error)) {
	for _, opt := range fuzzOptions() {
		tr, err := read(bytes.NewReader(data), opt)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz" {
				t.Fatalf("error %v (%T) is not a ParseError naming the file", err, err)
			}
			if tr != nil {
				t.Fatal("a trace and an error")
			}
			continue
		}
		allValid(t, tr)
		if tr.Skipped != len(tr.Skips) {
			t.Fatalf("Skipped %d != %d skips", tr.Skipped, len(tr.Skips))
		}
	}
}

// seedFile adds a shipped or sample file as a seed, when present.
func seedFile(f *testing.F, path string, limit int) {
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	if len(data) > limit {
		data = data[:limit]
	}
	f.Add(data)
}

func FuzzSWF(f *testing.F) {
	f.Add([]byte("21 2597 31 7914 512 3903 -1 64 64500 -1 1 14 -1 -1 3 -1 -1 -1\n"))
	f.Add([]byte("; comment\n\n590 66109 74 -1 -1 -1 -1 1 300 -1 5 42 -1 -1 1 -1 -1 -1\n1 10 0 100 8 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1"))
	seedFile(f, "../testdata/traces/sdsc-blue-30days.swf", 2000)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, func(r *bytes.Reader, opt Options) (*Trace, error) { return ReadSWF(r, "fuzz", opt) })
	})
}

func FuzzLWFLines(f *testing.F) {
	f.Add([]byte("0 56449 11472 11472 44 1 1024 0 'NONE.img' 600\n"))
	f.Add([]byte("# c\n30 -1 600 900 3 0.5 2048 10 base.img 1024\n10 100 60 -1 1 2 512 0 'x.img' 600"))
	seedFile(f, "../testdata/traces/local-work_05-dur_3h-size_2medium.lwf", 2000)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, func(r *bytes.Reader, opt Options) (*Trace, error) { return ReadLWFLines(r, "fuzz", opt) })
	})
}

func FuzzLWFXML(f *testing.F) {
	seedFile(f, "testdata/sample.lwf", 1<<20)
	f.Add([]byte(lwfDoc(lwfReq("10", `id="a" preemptible="true"`, `<start/><duration time="60"/>`))))
	f.Add([]byte(lwfDoc(lwfReq("0", "", `<start><exact time="2009-01-01 06:00:00"/></start><duration time="1:00:01:00"/><deadline time="+50:00:00"/>`))))
	f.Add([]byte(`<lease-workload><site><nodes><node-set numnodes="4"/><node-set numnodes="2"><res type="CPU" amount="200"/></node-set></nodes></site></lease-workload>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, func(r *bytes.Reader, opt Options) (*Trace, error) { return ReadLWFXML(r, "fuzz", opt) })
	})
}

func FuzzJSON(f *testing.F) {
	seedFile(f, "testdata/sample.json", 1<<20)
	f.Add([]byte(`[{"duration": 60}, {"duration": "2m", "vms": 2, "start": "now"}]`))
	f.Add([]byte(`{"leases": [{"start": 100, "duration": 10, "deadline": "1970-01-01 01:00:00", "cpu": 0.25}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, func(r *bytes.Reader, opt Options) (*Trace, error) { return ReadJSON(r, "fuzz", opt) })
	})
}

func FuzzYAML(f *testing.F) {
	seedFile(f, "testdata/sample.yaml", 1<<20)
	f.Add([]byte("- {duration: 60, kind: immediate}\n- duration: 2m\n  vms: 2\n"))
	f.Add([]byte("base: &b {duration: 1h}\nleases: [*b]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, func(r *bytes.Reader, opt Options) (*Trace, error) { return ReadYAML(r, "fuzz", opt) })
	})
}
