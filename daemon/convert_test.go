package daemon

import (
	"errors"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/fielderr"
	"github.com/bora-sched/bora/scheduler"
)

// TestToRequest: what each API request becomes, worked out by hand.
func TestToRequest(t *testing.T) {
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Duration { return now.Add(d).Sub(Epoch) }
	cases := []struct {
		name string
		in   api.LeaseRequest
		want scheduler.Request
	}{
		{"defaults: one core, 1024 MB, best-effort, local", api.LeaseRequest{VMs: 2, Duration: "90m"},
			scheduler.Request{Kind: scheduler.BestEffort, VMs: 2, CPU: 100, Memory: 1024, Duration: 90 * time.Minute,
				Class: scheduler.NonPreemptable, Origin: scheduler.Local}},
		{"advance reservation in an hour, HH:MM:SS", api.LeaseRequest{VMs: 1, CPU: 0.5, Memory: 512, Duration: "01:30:00", Start: "+1h"},
			scheduler.Request{Kind: scheduler.AdvanceReservation, Start: at(time.Hour), VMs: 1, CPU: 50, Memory: 512,
				Duration: 90 * time.Minute, Class: scheduler.NonPreemptable, Origin: scheduler.Local}},
		{"immediate", api.LeaseRequest{VMs: 1, Duration: "1h", Start: "now"},
			scheduler.Request{Kind: scheduler.Immediate, VMs: 1, CPU: 100, Memory: 1024, Duration: time.Hour,
				Class: scheduler.NonPreemptable, Origin: scheduler.Local}},
		{"external deadline, not before 2 h", api.LeaseRequest{VMs: 3, Duration: "1h", Deadline: "2030-01-01T20:00:00Z",
			NotBefore: "+2h", Origin: "external", Class: "migratable"},
			scheduler.Request{Kind: scheduler.Deadline, Start: at(2 * time.Hour), Deadline: at(8 * time.Hour), VMs: 3,
				CPU: 100, Memory: 1024, Duration: time.Hour, Class: scheduler.Migratable, Origin: scheduler.External}},
	}
	gw := api.Caller{User: "gw", External: true}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := toRequest(tc.in, now, gw)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.User, tc.want.Arrival = "gw", now.Sub(Epoch)
			if got != tc.want {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// FuzzToRequest: any request either converts to one the scheduler accepts
// as valid, or is refused with an error naming a field (or forbidden);
// never a panic.
func FuzzToRequest(f *testing.F) {
	f.Add(2, 1.5, int64(2048), "2h", "+1h", "", "+10h", "suspendable", "external", "")
	f.Add(1, 0.0, int64(0), "01:00:00", "now", "", "", "", "", "30m")
	f.Add(-1, -1.0, int64(-5), "-1h", "yesterday", "+x", "2030-13-01T00:00:00Z", "x", "y", "z")
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, vms int, cpu float64, mem int64, dur, start, notBefore, deadline, class, origin, real string) {
		r := api.LeaseRequest{VMs: vms, CPU: cpu, Memory: mem, Duration: dur, Start: start, NotBefore: notBefore,
			Deadline: deadline, Class: class, Origin: origin, RealDuration: real}
		req, err := toRequest(r, now, api.Caller{User: "u", Admin: true})
		if err != nil {
			var fe *fielderr.Error
			if !errors.As(err, &fe) && !errors.Is(err, api.ErrForbidden) {
				t.Fatalf("error without a field: %v", err)
			}
			if fe != nil && (fe.Path == "" || fe.Msg == "") {
				t.Fatalf("empty field error: %+v", fe)
			}
			return
		}
		if err := req.Validate(); err != nil {
			t.Fatalf("converted request invalid: %v (%+v)", err, req)
		}
	})
}
