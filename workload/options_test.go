package workload

import (
	"testing"

	"github.com/bora-sched/bora/scheduler"
)

func TestClassify(t *testing.T) {
	def := DefaultOptions()
	off := def
	off.SuspensionOff = true
	local := def
	local.ForceOrigin = scheduler.Local
	external := def
	external.ForceOrigin = scheduler.External
	cancel := def
	cancel.DefaultClass = scheduler.Cancellable
	tests := []struct {
		name       string
		opt        Options
		kind       scheduler.Kind
		origin     scheduler.Origin
		class      scheduler.Class
		wantOrigin scheduler.Origin
		wantClass  scheduler.Class
	}{
		{"AR default", def, scheduler.AdvanceReservation, "", "", scheduler.Local, scheduler.NonPreemptable},
		{"immediate default", def, scheduler.Immediate, "", "", scheduler.Local, scheduler.NonPreemptable},
		{"best-effort default", def, scheduler.BestEffort, "", "", scheduler.External, scheduler.Suspendable},
		{"best-effort, suspension off", off, scheduler.BestEffort, "", "", scheduler.External, scheduler.Cancellable},
		{"best-effort, default class cancellable", cancel, scheduler.BestEffort, "", "", scheduler.External, scheduler.Cancellable},
		{"deadline default", def, scheduler.Deadline, "", "", scheduler.External, scheduler.Migratable},
		{"deadline, suspension off", off, scheduler.Deadline, "", "", scheduler.External, scheduler.NonPreemptable},
		{"preemptable AR goes external", def, scheduler.AdvanceReservation, "", scheduler.Suspendable, scheduler.External, scheduler.Suspendable},
		{"non-preemptable best-effort stays external", def, scheduler.BestEffort, "", scheduler.NonPreemptable, scheduler.External, scheduler.NonPreemptable},
		{"local best-effort is non-preemptable", def, scheduler.BestEffort, scheduler.Local, "", scheduler.Local, scheduler.NonPreemptable},
		{"external AR keeps its class", def, scheduler.AdvanceReservation, scheduler.External, "", scheduler.External, scheduler.NonPreemptable},
		{"stated both", def, scheduler.BestEffort, scheduler.External, scheduler.Migratable, scheduler.External, scheduler.Migratable},
		{"forced local wins", local, scheduler.BestEffort, scheduler.External, scheduler.Suspendable, scheduler.Local, scheduler.NonPreemptable},
		{"forced external AR", external, scheduler.AdvanceReservation, "", "", scheduler.External, scheduler.NonPreemptable},
		{"forced external best-effort", external, scheduler.BestEffort, "", "", scheduler.External, scheduler.Suspendable},
		{"zero options: suspendable", Options{}, scheduler.BestEffort, "", "", scheduler.External, scheduler.Suspendable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, c := tc.opt.classify(tc.kind, tc.origin, tc.class)
			if o != tc.wantOrigin || c != tc.wantClass {
				t.Errorf("classify = %s, %s; want %s, %s", o, c, tc.wantOrigin, tc.wantClass)
			}
		})
	}
}
