package availability

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

func at(h, m int) time.Time { return t0.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-8 }

// The worked value of docs/models.md §4.
func TestUpdateWorkedValue(t *testing.T) {
	// A_recent = 50/60 = 0.8333; A = 0.5·0.9·e^-0.5 + 0.5·0.8333
	//   = 0.45·0.60653066 + 0.41666667 = 0.68960547
	got := Defaults().Update(0.9, 12*time.Hour, 50*time.Minute, 10*time.Minute)
	if !near(got, 0.68960547) {
		t.Errorf("A = %.8f, want 0.68960547", got)
	}
	// A period with no time in it changes nothing.
	if got := Defaults().Update(0.7, time.Hour, 0, 0); got != 0.7 {
		t.Errorf("empty period: A = %v, want 0.7", got)
	}
}

func TestJoint(t *testing.T) {
	cases := []struct {
		name string
		in   []float64
		want float64
	}{
		{"no host", nil, 1},
		{"one", []float64{0.9}, 0.9},
		{"three", []float64{0.9, 0.8, 0.5}, 0.36}, // 0.9·0.8·0.5
	}
	for _, c := range cases {
		if got := Joint(c.in); !near(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// A host's estimate over two periods of use, with down time inside and
// outside them.
func TestTrackerPeriods(t *testing.T) {
	tr, err := NewTracker(Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Estimate("h1"); got != 1 {
		t.Fatalf("unseen host: %v, want 1", got)
	}
	// Period 1, 00:00-01:00, down 00:30-00:40: 50 min up, 10 down, first
	// period so t = 0: A = 0.5·1·1 + 0.5·5/6 = 0.91666667.
	tr.SetUsed("h1", at(0, 0), true)
	tr.SetUp("h1", at(0, 30), false)
	tr.SetUp("h1", at(0, 40), true)
	tr.SetUsed("h1", at(1, 0), false)
	if got := tr.Estimate("h1"); !near(got, 0.91666667) {
		t.Fatalf("after period 1: %.8f, want 0.91666667", got)
	}
	// Down while unused does not count.
	tr.SetUp("h1", at(5, 0), false)
	tr.SetUp("h1", at(6, 0), true)
	if got := tr.Estimate("h1"); !near(got, 0.91666667) {
		t.Fatalf("after an unused outage: %.8f, want 0.91666667", got)
	}
	// Period 2 starts 12 h after period 1 ended, 13:00-14:00, down from
	// 13:45 past its end: 45 min up, 15 down; A = 0.5·0.91666667·e^-0.5 +
	// 0.5·0.75 = 0.27799322 + 0.375 = 0.65299322.
	tr.SetUsed("h1", at(13, 0), true)
	tr.SetUsed("h1", at(13, 20), true) // still used: no new period
	tr.SetUp("h1", at(13, 45), false)
	tr.SetUsed("h1", at(14, 0), false)
	tr.SetUp("h1", at(14, 30), true)
	if got := tr.Estimate("h1"); !near(got, 0.65299322) {
		t.Fatalf("after period 2: %.8f, want 0.65299322", got)
	}
	if got := tr.Joint([]string{"h1", "h2"}); !near(got, 0.65299322) {
		t.Errorf("joint with an unseen host: %.8f, want 0.65299322", got)
	}
	if r := tr.Records()["h1"]; r.Periods != 2 || !r.LastEnd.Equal(at(14, 0)) {
		t.Errorf("record %+v, want 2 periods, last ending 14:00", r)
	}
}

// Records stored mid-period (as JSON, as a daemon would) and restored
// carry on as if nothing had happened.
func TestTrackerRestore(t *testing.T) {
	run := func(tr *Tracker, from, to int) {
		steps := []func(){
			func() { tr.SetUsed("h1", at(0, 0), true) },
			func() { tr.SetUp("h1", at(0, 30), false) },
			func() { tr.SetUp("h1", at(0, 40), true) },
			func() { tr.SetUsed("h1", at(1, 0), false) },
		}
		for _, s := range steps[from:to] {
			s()
		}
	}
	whole, _ := NewTracker(Defaults())
	run(whole, 0, 4)

	first, _ := NewTracker(Defaults())
	run(first, 0, 2) // stored while down, mid-period
	data, err := json.Marshal(first.Records())
	if err != nil {
		t.Fatal(err)
	}
	var saved map[string]Host
	if err := json.Unmarshal(data, &saved); err != nil {
		t.Fatal(err)
	}
	second, _ := NewTracker(Defaults())
	if err := second.Restore(saved); err != nil {
		t.Fatal(err)
	}
	run(second, 2, 4)
	if a, b := whole.Estimate("h1"), second.Estimate("h1"); a != b || !near(a, 0.91666667) {
		t.Errorf("restored run: %v, whole run %v, want 0.91666667", b, a)
	}
}

func TestBadInput(t *testing.T) {
	for _, p := range []Params{{W: 1.5, Tau: time.Hour}, {W: -0.1, Tau: time.Hour}, {W: math.NaN(), Tau: time.Hour}, {W: 0.5}} {
		if _, err := NewTracker(p); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewTracker(%+v) = %v, want ErrInvalid", p, err)
		}
	}
	tr, _ := NewTracker(Defaults())
	tr.SetUsed("h1", at(0, 0), true)
	err := tr.Restore(map[string]Host{"h1": {A: 0.5}, "h2": {A: 1.5}})
	if err == nil || !strings.Contains(err.Error(), "host h2") {
		t.Fatalf("Restore with A = 1.5: %v, want an error naming h2", err)
	}
	if r := tr.Records()["h1"]; !r.Used {
		t.Errorf("a refused Restore changed the records: %+v", r)
	}
}
