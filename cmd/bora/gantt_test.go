package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
)

func fakeSchedule(t *testing.T) api.Schedule {
	t.Helper()
	s, err := newFakeService().Schedule(context.Background(), api.Caller{}, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The fake's schedule over 10:00-12:00 in 12 columns of 10 minutes:
// lease 1 runs 10:00-11:00 on node01 (columns 0-5, its id in column 1),
// is suspended 11:00-11:10 (column 6), resumed on node02 11:30-11:40
// (column 9) and runs there to 12:00 (columns 10-11: too short for its id);
// lease 2 shares node01 10:30-11:30, so it gets a second lane (columns
// 3-8). Now is 11:45 (column 10), marked where the lanes are free. The
// ticks are 2 h apart (a 5-character label needs 7 columns = 70 min), so
// only 10:00 is labelled.
const wantGantt = `2030-01-02 10:00:00 .. 2030-01-02 12:00:00, one column = 10m, now 11:45:00 (:)
        10:00
HOST   ++-----------+
node01 |A1AAAAv   : |
       |   B2BBBB : |
node02 |         ^AA|
       ++-----------+

LEASES
  A  1  alice  web  best-effort  running
  B  2
MARKS  > prepare  v suspend  ^ resume  ~ migrate  x shutdown  # stop  : now
`

func TestGantt(t *testing.T) {
	var b bytes.Buffer
	leases := map[uint64]api.Lease{1: {ID: 1, User: "alice", Name: "web", Kind: "best-effort", State: "running"}}
	if err := writeGantt(&b, fakeSchedule(t), leases, 12, time.UTC); err != nil {
		t.Fatal(err)
	}
	if b.String() != wantGantt {
		t.Errorf("got\n%s\nwant\n%s", b.String(), wantGantt)
	}
}

func TestGanttEveryOperationHasItsMark(t *testing.T) {
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	s := api.Schedule{Now: at(-10), From: at(0), To: at(60), Hosts: []string{"h"}}
	// One 10-minute interval of each kind, one after the other: in 6
	// columns of 10 minutes each gets its own column.
	for i, k := range []string{"prepare", "suspend", "resume", "migrate", "shutdown", "stop"} {
		s.Intervals = append(s.Intervals, api.Interval{Lease: 7, Host: "h", Kind: k, Start: at(10 * i), End: at(10*i + 10)})
	}
	var b bytes.Buffer
	if err := writeGantt(&b, s, nil, 6, time.UTC); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "h    |>v^~x#|\n") {
		t.Errorf("got\n%s", b.String())
	}
}

func TestGanttLayoutsAtManyWidths(t *testing.T) {
	s := fakeSchedule(t)
	for _, w := range []int{10, 13, 37, 80, 200, 1000} {
		var b bytes.Buffer
		if err := writeGantt(&b, s, nil, w, time.UTC); err != nil {
			t.Fatal(err)
		}
		// Every chart line has the same length: name, frame, at most w
		// columns, frame.
		var n int
		for _, line := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(line, "node0") || strings.HasPrefix(line, "       |") {
				if n == 0 {
					n = len(line)
				}
				if len(line) != n || len(line) > 7+w+2 {
					t.Errorf("width %d: line %q", w, line)
				}
			}
		}
	}
}

func TestSVG(t *testing.T) {
	s := fakeSchedule(t)
	s.Hosts = append(s.Hosts, `<h&"3">`)
	s.Intervals = append(s.Intervals, api.Interval{Lease: 3, Host: `<h&"3">`, Kind: "vm", Start: t0, End: t0.Add(time.Hour)})
	var b bytes.Buffer
	leases := map[uint64]api.Lease{3: {ID: 3, User: "eve", Name: `</svg><script>`}}
	if err := writeSVG(&b, s, leases, time.UTC); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rects []struct {
			Title string `xml:"title"`
		} `xml:"rect"`
		Texts []string `xml:"text"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	var titles []string
	for _, r := range doc.Rects {
		if r.Title != "" {
			titles = append(titles, r.Title)
		}
	}
	// Six reservations, each a rectangle with a tooltip.
	if len(titles) != 6 {
		t.Errorf("%d reservations drawn: %q", len(titles), titles)
	}
	if !strings.Contains(strings.Join(titles, "\n"), `lease 3 (eve, </svg><script>): vm on <h&"3">`) {
		t.Errorf("titles %q", titles)
	}
	if !strings.Contains(strings.Join(doc.Texts, "|"), "now") {
		t.Errorf("no now line: %q", doc.Texts)
	}
}

func TestScheduleCommand(t *testing.T) {
	d := startDaemon(t)
	d.bora(t, as(aliceToken), "", "lease", "create", "--name", "web", "--duration", "1h").check(t, exitOK)
	svg := filepath.Join(t.TempDir(), "s.svg")
	r := d.bora(t, as(aliceToken), "", "schedule", "--width", "12", "--svg", svg)
	r.check(t, exitOK, "node01 |A1AAAAv   : |\n", "  A  1  alice  web  best-effort  scheduled\n")
	f, err := os.Open(svg)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("svg: %v", err)
		}
	}
	r = d.bora(t, as(aliceToken), "", "schedule", "--from", "2030-01-02 10:30", "--to", "+1d", "-o", "json")
	var s api.Schedule
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatal(err)
	}
	// The local time (UTC here) and the offset from the daemon's now.
	if !s.From.Equal(t0.Add(30*time.Minute)) || !s.To.Equal(t0.Add(24*time.Hour)) {
		t.Errorf("window %v .. %v", s.From, s.To)
	}
	// A negative offset is a value, not a flag.
	r = d.bora(t, as(aliceToken), "", "schedule", "--from", "-1h", "--to", "+2d", "-o", "yaml")
	r.check(t, exitOK, "from: \"2030-01-02T09:00:00Z\"\n", "to: \"2030-01-04T10:00:00Z\"\n")
	d.bora(t, as(aliceToken), "", "schedule", "--width", "3").check(t, exitUsage)
	d.bora(t, as(aliceToken), "", "schedule", "--from", "tomorrow").check(t, exitUsage)
}
