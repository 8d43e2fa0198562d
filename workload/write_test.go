package workload

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// writeCases cover every kind, class and origin, fractional CPU, odd
// names, sub-second times and every optional field.
func writeCases() []scheduler.Request {
	return []scheduler.Request{
		{Name: "1", Arrival: 0, Kind: scheduler.Immediate, Duration: time.Hour, VMs: 4, CPU: 100, Memory: 1024,
			Class: scheduler.NonPreemptable, Origin: scheduler.Local},
		{Name: "ar \"quoted\": yes", User: "ana", Arrival: 90 * time.Second, Kind: scheduler.AdvanceReservation,
			Start: 25 * time.Hour, Duration: 2 * time.Hour, VMs: 1, CPU: 50, Memory: 512, Image: "img.qcow2",
			Class: scheduler.NonPreemptable, Origin: scheduler.Local},
		{Name: "be", Arrival: 1500 * time.Millisecond, Kind: scheduler.BestEffort, Duration: 3 * time.Hour,
			Real: 90 * time.Minute, VMs: 16, CPU: 250, Memory: 2048, Class: scheduler.Suspendable, Origin: scheduler.External},
		{Name: "be-later", Arrival: time.Minute, Kind: scheduler.BestEffort, Start: time.Hour, Duration: time.Hour,
			VMs: 2, CPU: 100, Memory: 1024, Class: scheduler.Cancellable, Origin: scheduler.External},
		{Name: "ms", Arrival: 86400*time.Second + 1234567891, Kind: scheduler.BestEffort, Duration: 90*time.Second + 1,
			VMs: 1, CPU: 100, Memory: 1024, Class: scheduler.Cancellable, Origin: scheduler.External},
		{Name: "dl", Arrival: 10 * time.Second, Kind: scheduler.Deadline, Duration: time.Hour, Deadline: 4 * time.Hour,
			VMs: 8, CPU: 0, Memory: 0, Class: scheduler.Migratable, Origin: scheduler.External},
	}
}

func TestWriteJSONRoundTrip(t *testing.T) {
	reqs := writeCases()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, reqs); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(&buf, "w.json", DefaultOptions())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(got.Requests, reqs) {
		t.Errorf("read back\n%+v\nwant\n%+v", got.Requests, reqs)
	}
}

func TestWriteYAMLRoundTrip(t *testing.T) {
	reqs := writeCases()
	var buf bytes.Buffer
	if err := WriteYAML(&buf, reqs, "made by a test", "seed 1"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "# made by a test\n# seed 1\nleases:\n") {
		t.Errorf("header: %q", buf.String()[:40])
	}
	got, err := ReadYAML(&buf, "w.yaml", DefaultOptions())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(got.Requests, reqs) {
		t.Errorf("read back\n%+v\nwant\n%+v", got.Requests, reqs)
	}
	buf.Reset()
	WriteYAML(&buf, nil)
	if got, err := ReadYAML(&buf, "e.yaml", DefaultOptions()); err != nil || len(got.Requests) != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
}

// SWF carries the number, arrival, VMs, requested and real durations (to
// the second); ReadSWF makes best-effort leases of them with the
// options' CPU and memory.
func TestWriteSWFRoundTrip(t *testing.T) {
	reqs := writeCases()
	var buf bytes.Buffer
	if err := WriteSWF(&buf, reqs, "made by a test"); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSWF(&buf, "w.swf", DefaultOptions())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if len(got.Requests) != len(reqs) {
		t.Fatalf("%d jobs read back, want %d", len(got.Requests), len(reqs))
	}
	// Names: "1" stays, the others get their index. Arrival 1.5 s rounds
	// to 2 s. Real = requested unless given (be: 90 min of 3 h).
	wantNames := []string{"1", "2", "3", "4", "5", "6"}
	wantArrival := []time.Duration{0, 90 * time.Second, 2 * time.Second, time.Minute, 86401 * time.Second, 10 * time.Second}
	for i, g := range got.Requests {
		r := reqs[i]
		if g.Name != wantNames[i] || g.Arrival != wantArrival[i] || g.VMs != r.VMs || g.Duration != r.Duration.Round(time.Second) ||
			g.RealDuration() != r.RealDuration().Round(time.Second) || g.Kind != scheduler.BestEffort || g.CPU != 100 || g.Memory != 1024 {
			t.Errorf("job %d read back as %+v, from %+v", i+1, g, r)
		}
	}
}
