package daemon

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/scheduler"
)

// TestMovedDeadlineLeaseSaved: Haizea's deadline1 through the API. Lease 1
// (4 hosts from 00:30 for 30 min, deadline 01:45) is planned at 00:30;
// lease 2 (the same hosts from 00:30, deadline 01:00) is accepted by
// moving 1 to 01:00. The move is in the store as soon as 2 is accepted
// (1's history notes it, and its saved plan starts at 01:00 unless it has
// begun), and 1 runs from 01:00.
func TestMovedDeadlineLeaseSaved(t *testing.T) {
	d := start(t, testConfig(t.TempDir(), 4))
	ctx := context.Background()
	req := func(name, deadline string) api.LeaseRequest {
		return api.LeaseRequest{Name: name, VMs: 4, Duration: "30m", Origin: "external", Class: "migratable",
			NotBefore: simStart.Add(30 * time.Minute).Format(time.RFC3339),
			Deadline:  deadline}
	}
	one, err := d.CreateLease(ctx, admin, req("one", simStart.Add(105*time.Minute).Format(time.RFC3339)))
	if err != nil {
		t.Fatal(err)
	}
	two, err := d.CreateLease(ctx, admin, req("two", simStart.Add(time.Hour).Format(time.RFC3339)))
	if err != nil {
		t.Fatal(err)
	}
	if two.State != "scheduled" {
		t.Fatalf("two: %s (%s %s), want scheduled", two.State, two.Reason, two.Detail)
	}
	st, err := d.Store().Load()
	if err != nil {
		t.Fatal(err)
	}
	var sl scheduler.SavedLease
	if err := json.Unmarshal(st.Leases[one.ID], &sl); err != nil {
		t.Fatalf("lease %d in the store: %v", one.ID, err)
	}
	moved := false
	for _, e := range sl.History {
		moved = moved || e.Reason == scheduler.ReasonMovedForDeadline
	}
	if !moved {
		t.Errorf("stored history of one lacks %s: %+v", scheduler.ReasonMovedForDeadline, sl.History)
	}
	if !sl.Entered && (len(sl.Plan) == 0 || !sl.Plan[0].Start.Equal(simStart.Add(time.Hour))) {
		t.Errorf("stored plan of one %+v, want it to start at 01:00", sl.Plan)
	}
	a := waitFor(t, d, one.ID, "done", func(l api.Lease) bool { return l.State == "done" })
	if !a.Start.Equal(simStart.Add(time.Hour)) {
		t.Errorf("one started at %v, want 01:00", a.Start)
	}
	b := waitFor(t, d, two.ID, "done", func(l api.Lease) bool { return l.State == "done" })
	if !b.Start.Equal(simStart.Add(30 * time.Minute)) {
		t.Errorf("two started at %v, want 00:30", b.Start)
	}
}
