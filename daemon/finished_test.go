package daemon

import (
	"reflect"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// TestOverRecordRoundTrip: a finished lease's compact record gives back
// every field the API shows, and a lease that ran on other hosts before
// keeps them; the record of a plain one-minute lease stays short.
func TestOverRecordRoundTrip(t *testing.T) {
	sub := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	dl := sub.Add(3 * time.Hour)
	cases := []struct {
		name string
		l    scheduler.Lease
		max  int // bytes of the record
	}{
		{"done, one VM", scheduler.Lease{ID: 5, State: scheduler.Done,
			Req: scheduler.Request{Name: "m4", User: "alice", Arrival: time.Duration(sub.UnixNano()), Kind: scheduler.BestEffort,
				Duration: time.Minute, VMs: 1, CPU: 100, Memory: 1024, Class: scheduler.NonPreemptable, Origin: scheduler.Local},
			History: []scheduler.Event{{At: sub, State: scheduler.Pending}, {At: sub, State: scheduler.Running},
				{At: sub.Add(time.Minute), State: scheduler.Done}},
			Submitted: sub, Ready: sub, FirstStart: sub, End: sub.Add(time.Minute),
			Hosts: []slottable.HostID{4}, AllHosts: []slottable.HostID{4}, Ops: map[scheduler.Operation]int{}}, 400},
		{"cancelled after a migration, deadline missed", scheduler.Lease{ID: 7, State: scheduler.Cancelled,
			Reason: "preempted", Detail: "by lease 9",
			Req: scheduler.Request{Name: "x", User: "bob", Arrival: time.Duration(sub.UnixNano()), Kind: scheduler.BestEffort,
				Duration: time.Hour, Deadline: 3 * time.Hour, VMs: 2, CPU: 50, Memory: 512, Image: "img",
				Class: scheduler.Suspendable, Origin: scheduler.External},
			History: []scheduler.Event{{At: sub, State: scheduler.Pending},
				{At: sub.Add(1500 * time.Millisecond), State: scheduler.Cancelled, Reason: "preempted", Detail: "by lease 9"}},
			Submitted: sub, Ready: sub.Add(time.Second), Deadline: dl, Remaining: 20 * time.Minute,
			FirstStart: sub.Add(time.Second), End: sub.Add(1500 * time.Millisecond),
			Hosts: []slottable.HostID{1, 2}, AllHosts: []slottable.HostID{0, 1, 2}, Preemptions: 2, Migrations: 1,
			DeadlineMissed: true, Overhead: 163311 * time.Millisecond,
			Ops: map[scheduler.Operation]int{scheduler.OpMigrate: 1, scheduler.OpCancel: 1}}, 800},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := encodeOver(&c.l)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) > c.max {
				t.Errorf("record is %d bytes, want at most %d: %s", len(data), c.max, data)
			}
			got, ok, err := decodeOver(data)
			if err != nil || !ok {
				t.Fatalf("decode: %v, %v", ok, err)
			}
			if !reflect.DeepEqual(*got, c.l) {
				t.Errorf("round trip:\n got %+v\nwant %+v", *got, c.l)
			}
		})
	}
}
