package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestWriteJSONRoundTrip(t *testing.T) {
	want := handReport("suspend")
	want.Gantt, want.Utilisation = nil, nil // not part of the JSON
	var buf bytes.Buffer
	if err := WriteJSON(&buf, handReport("suspend")); err != nil {
		t.Fatal(err)
	}
	var got Report
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("decoding %s: %v", buf.String(), err)
	}
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("round trip:\ngot  %+v\nwant %+v", got, *want)
	}
	if !strings.HasPrefix(buf.String(), "{\n  \"name\": \"suspend\",") {
		t.Errorf("not an indented object:\n%s", buf.String())
	}
}

func TestWriteJSONShapes(t *testing.T) {
	tests := []struct {
		name    string
		reports []*Report
		// check inspects the decoded document.
		check func(t *testing.T, doc map[string]any)
	}{
		{"rejected lease has null start and end", []*Report{handReport("a")}, func(t *testing.T, doc map[string]any) {
			lease := doc["leases"].([]any)[1].(map[string]any)
			for _, key := range []string{"start_s", "end_s"} {
				if v, ok := lease[key]; !ok || v != nil {
					t.Errorf("%s = %v (present %v), want null", key, v, ok)
				}
			}
		}},
		{"sweep is wrapped in runs", []*Report{handReport("a"), handReport("b")}, func(t *testing.T, doc map[string]any) {
			runs, ok := doc["runs"].([]any)
			if !ok || len(runs) != 2 || len(doc) != 1 {
				t.Fatalf("doc = %v, want only runs with 2 entries", doc)
			}
			if name := runs[1].(map[string]any)["name"]; name != "b" {
				t.Errorf("runs[1].name = %v, want b", name)
			}
		}},
		{"empty report has empty lists and maps", []*Report{{}}, func(t *testing.T, doc map[string]any) {
			if l, ok := doc["leases"].([]any); !ok || len(l) != 0 {
				t.Errorf("leases = %#v, want []", doc["leases"])
			}
			if o, ok := doc["options"].(map[string]any); !ok || len(o) != 0 {
				t.Errorf("options = %#v, want {}", doc["options"])
			}
			m := doc["metrics"].(map[string]any)
			if _, ok := m["energy_kwh"]; ok {
				t.Errorf("energy_kwh present without energy: %v", m)
			}
		}},
		{"lease without hosts has []", []*Report{{Leases: []Lease{{ID: 7}}}}, func(t *testing.T, doc map[string]any) {
			lease := doc["leases"].([]any)[0].(map[string]any)
			if h, ok := lease["hosts"].([]any); !ok || len(h) != 0 {
				t.Errorf("hosts = %#v, want []", lease["hosts"])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteJSON(&buf, tt.reports...); err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("decoding %s: %v", buf.String(), err)
			}
			tt.check(t, doc)
		})
	}
}

func TestWriterErrors(t *testing.T) {
	tests := []struct {
		name  string
		write func() error
		want  error
	}{
		{"json without reports", func() error { return WriteJSON(&bytes.Buffer{}) }, ErrNoReports},
		{"json with a nil report", func() error { return WriteJSON(&bytes.Buffer{}, handReport("a"), nil) }, ErrNilReport},
		{"table without reports", func() error { return WriteTable(&bytes.Buffer{}) }, ErrNoReports},
		{"table with a nil report", func() error { return WriteTable(&bytes.Buffer{}, nil) }, ErrNilReport},
		{"csv of nil", func() error { return WriteCSV(&bytes.Buffer{}, nil) }, ErrNilReport},
		{"gantt of nil", func() error { return WriteGantt(t.TempDir()+"/g.svg", nil) }, ErrNilReport},
		{"gantt as pdf", func() error { return WriteGantt(t.TempDir()+"/g.pdf", handReport("a")) }, ErrFormat},
		{"utilisation without extension", func() error { return WriteUtilisation(t.TempDir()+"/u", handReport("a")) }, ErrFormat},
		{"dir without reports", func() error { return WriteDir(t.TempDir()) }, ErrNoReports},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.write(); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}
