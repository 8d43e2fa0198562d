package opennebula

import (
	"strings"
	"testing"
	"time"
)

func TestParseLeaseSpec(t *testing.T) {
	at := time.Date(2031, 5, 1, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string // the single-value form
		want leaseSpec
		err  string // a part of the error; "" = valid
	}{
		{"", leaseSpec{Start: timeSpec{kind: "best-effort"}}, ""},
		{"ID=x, START=now, DURATION=01:30:00", leaseSpec{ID: "x", Start: timeSpec{kind: "now"}, Duration: 90 * time.Minute}, ""},
		{"DURATION=3600", leaseSpec{Start: timeSpec{kind: "best-effort"}, Duration: time.Hour}, ""},
		{"DURATION=90m", leaseSpec{Start: timeSpec{kind: "best-effort"}, Duration: 90 * time.Minute}, ""},
		{"DURATION=100:00:00", leaseSpec{Start: timeSpec{kind: "best-effort"}, Duration: 100 * time.Hour}, ""},
		{"START=+00:10:00", leaseSpec{Start: timeSpec{kind: "rel", rel: 10 * time.Minute}}, ""},
		{"START=2031-05-01T08:00:00Z", leaseSpec{Start: timeSpec{kind: "at", at: at}}, ""},
		{"START=2031-05-01T10:00:00+02:00", leaseSpec{Start: timeSpec{kind: "at", at: at}}, ""},
		{"START=2031-05-01 08:00:00", leaseSpec{Start: timeSpec{kind: "at", at: at}}, ""},
		{"[START=best-effort, DEADLINE=+06:00:00]",
			leaseSpec{Start: timeSpec{kind: "best-effort"}, Deadline: timeSpec{kind: "rel", rel: 6 * time.Hour}}, ""},
		{`CLASS="Non-Preemptable", ORIGIN=external, VMS=4`,
			leaseSpec{Start: timeSpec{kind: "best-effort"}, Class: "non-preemptable", Origin: "external", VMs: 4}, ""},
		{"START=tomorrow", leaseSpec{}, `START = "tomorrow"`},
		{"DURATION=0", leaseSpec{}, "DURATION"},
		{"DURATION=-5", leaseSpec{}, "DURATION"},
		{"DURATION=01:60:00", leaseSpec{}, "HH:MM:SS"},
		{"DURATION=1:2", leaseSpec{}, "DURATION"},
		{"START=now, DEADLINE=+01:00:00", leaseSpec{}, "DEADLINE needs START = best-effort"},
		{"CLASS=gold", leaseSpec{}, "CLASS"},
		{"ORIGIN=mars", leaseSpec{}, "ORIGIN"},
		{"VMS=0", leaseSpec{}, "VMS"},
		{"PRIORITY=high", leaseSpec{}, "unknown key PRIORITY"},
		{"ID", leaseSpec{}, "not KEY=VALUE"},
		{"ID=a, ID=b", leaseSpec{}, "twice"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			f, err := parseLeaseText(tc.in)
			var got leaseSpec
			if err == nil {
				got, err = parseLeaseSpec(f)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want one mentioning %q", err, tc.err)
			case tc.err == "" && got != tc.want:
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// FuzzLeaseAttr feeds arbitrary BORA_LEASE text to the parser: it must
// not panic, and what it accepts must be a request bora can use.
func FuzzLeaseAttr(f *testing.F) {
	for _, s := range []string{
		"ID=x, START=now, DURATION=01:30:00", "[START=+00:10:00, CLASS=migratable]",
		"START=2031-05-01T08:00:00Z, DEADLINE=+99999999:00:00", "DURATION=9223372036854775807",
		"DURATION=2562047h", "VMS=-1", `ID="a,b"`, "=", ",,,", "START=+-1s",
	} {
		f.Add(s)
	}
	created := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, in string) {
		fields, err := parseLeaseText(in)
		if err != nil {
			return
		}
		sp, err := parseLeaseSpec(fields)
		if err != nil {
			if err.Error() == "" {
				t.Errorf("%q: empty error", in)
			}
			return
		}
		if sp.Duration < 0 || sp.Duration > maxDuration {
			t.Errorf("%q: duration %v out of range", in, sp.Duration)
		}
		if sp.VMs < 0 {
			t.Errorf("%q: %d VMs", in, sp.VMs)
		}
		switch sp.Start.kind {
		case "best-effort", "now":
		case "at", "rel":
			if _, err := time.Parse(time.RFC3339, sp.Start.resolve(created)); err != nil {
				t.Errorf("%q: start %q is not RFC 3339", in, sp.Start.resolve(created))
			}
		default:
			t.Errorf("%q: start kind %q", in, sp.Start.kind)
		}
		if sp.Deadline.kind != "" && sp.Start.kind != "best-effort" {
			t.Errorf("%q: deadline with start %q", in, sp.Start.kind)
		}
		if sp.Class != "" && !classes[sp.Class] {
			t.Errorf("%q: class %q", in, sp.Class)
		}
		if _, err := time.ParseDuration(formatDuration(sp.Duration)); err != nil {
			t.Errorf("%q: duration %v does not render", in, sp.Duration)
		}
	})
}
