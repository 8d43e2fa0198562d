package slottable

import (
	"errors"
	"strings"
	"testing"
)

// errorCases each do something to the fixture table that must fail with
// want.
var errorCases = []struct {
	name string
	do   func(tab *Table, ids [5]ResID) error
	want error
}{
	{"AddHost short capacity", func(tab *Table, _ [5]ResID) error {
		_, err := tab.AddHost("x", res(1))
		return err
	}, ErrBadResources},
	{"AddHost negative capacity", func(tab *Table, _ [5]ResID) error {
		_, err := tab.AddHost("x", res(1, -1))
		return err
	}, ErrBadResources},
	{"Add unknown host", func(tab *Table, _ [5]ResID) error {
		_, err := tab.Add(Reservation{Host: 7, Start: at(0), End: at(1), Res: res(1, 1)})
		return err
	}, ErrUnknownHost},
	{"Add negative host", func(tab *Table, _ [5]ResID) error {
		_, err := tab.Add(Reservation{Host: -1, Start: at(0), End: at(1), Res: res(1, 1)})
		return err
	}, ErrUnknownHost},
	{"Add empty interval", func(tab *Table, _ [5]ResID) error {
		_, err := tab.Add(Reservation{Host: 0, Start: at(3), End: at(3), Res: res(1, 1)})
		return err
	}, ErrBadInterval},
	{"Add inverted interval", func(tab *Table, _ [5]ResID) error {
		_, err := tab.Add(Reservation{Host: 0, Start: at(3), End: at(2), Res: res(1, 1)})
		return err
	}, ErrBadInterval},
	{"Add long vector", func(tab *Table, _ [5]ResID) error {
		_, err := tab.Add(Reservation{Host: 0, Start: at(0), End: at(1), Res: res(1, 1, 1)})
		return err
	}, ErrBadResources},
	{"Add negative resource", func(tab *Table, _ [5]ResID) error {
		_, err := tab.Add(Reservation{Host: 0, Start: at(0), End: at(1), Res: res(-1, 1)})
		return err
	}, ErrBadResources},
	{"Add over capacity", func(tab *Table, _ [5]ResID) error {
		tab.SetChecking(true) // host a holds 300 cpu on [5,10): +101 > 400
		_, err := tab.Add(Reservation{Host: 0, Start: at(8), End: at(9), Res: res(101, 0)})
		return err
	}, ErrOverCapacity},
	{"Remove unknown", func(tab *Table, _ [5]ResID) error {
		return tab.Remove(999)
	}, ErrUnknownReservation},
	{"Remove twice", func(tab *Table, ids [5]ResID) error {
		if err := tab.Remove(ids[1]); err != nil {
			return err
		}
		return tab.Remove(ids[1])
	}, ErrUnknownReservation},
	{"SetEnd unknown", func(tab *Table, _ [5]ResID) error {
		return tab.SetEnd(999, at(5))
	}, ErrUnknownReservation},
	{"SetEnd to start", func(tab *Table, ids [5]ResID) error {
		return tab.SetEnd(ids[2], at(5)) // r2 starts at 5
	}, ErrBadInterval},
	{"SetEnd before start", func(tab *Table, ids [5]ResID) error {
		return tab.SetEnd(ids[2], at(1))
	}, ErrBadInterval},
	{"SetEnd lengthen over capacity", func(tab *Table, ids [5]ResID) error {
		tab.SetChecking(true) // r3 (800 cpu on b) into r4 (400 from 30)
		return tab.SetEnd(ids[3], at(31))
	}, ErrOverCapacity},
	{"Check overcommitted", func(tab *Table, _ [5]ResID) error {
		// Checking is off: the add goes through, Check sees it.
		if _, err := tab.Add(Reservation{Host: 0, Start: at(8), End: at(9), Res: res(101, 0)}); err != nil {
			return err
		}
		return tab.Check()
	}, ErrOverCapacity},
	{"Check corrupt", func(tab *Table, _ [5]ResID) error {
		tab.cp[0].leafDelta(tab.cp[0].root, 0)[0]++ // break a summary
		return tab.Check()
	}, ErrCorrupt},
	{"Check corrupt multiset", func(tab *Table, _ [5]ResID) error {
		tab.ms.inc(at(1000).UnixNano())
		return tab.Check()
	}, ErrCorrupt},
	{"Check corrupt lease index", func(tab *Table, ids [5]ResID) error {
		slot, _ := tab.byID.get(ids[1])
		tab.lease.Set(42, append(tab.slotsOf(42), slot))
		return tab.Check()
	}, ErrCorrupt},
}

func TestErrors(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			tab, ids := fixture(t)
			if err := c.do(tab, ids); !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
}

// TestOverCapacityLeavesTableUnchanged: a refused Add or SetEnd changes
// nothing, and the error names the host, the time and the resource.
func TestOverCapacityLeavesTableUnchanged(t *testing.T) {
	tab, ids := fixture(t)
	tab.SetChecking(true)
	if !tab.Checking() {
		t.Fatal("Checking() = false after SetChecking(true)")
	}
	before := tab.Overlapping(at(-100), at(100))
	cps := tab.ChangePoints(at(-100), at(100))
	// Host a: 1024 MB on [0,5), 1536 on [5,10). 3000 MB more over [2,12)
	// fits at 2 (4024) but exceeds 4096 at 5 (4536).
	_, err := tab.Add(Reservation{Host: 0, Start: at(2), End: at(12), Res: res(0, 3000)})
	if !errors.Is(err, ErrOverCapacity) {
		t.Fatalf("Add: err = %v, want ErrOverCapacity", err)
	}
	for _, s := range []string{`"a"`, "memory", at(5).String()} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %s", err, s)
		}
	}
	if err := tab.SetEnd(ids[3], at(35)); !errors.Is(err, ErrOverCapacity) {
		t.Fatalf("SetEnd: err = %v, want ErrOverCapacity", err)
	}
	if got := tab.Overlapping(at(-100), at(100)); !sameRes(got, before) {
		t.Errorf("reservations changed: %v, was %v", got, before)
	}
	if got := tab.ChangePoints(at(-100), at(100)); len(got) != len(cps) {
		t.Errorf("change points changed: %v, was %v", got, cps)
	}
	if err := tab.Check(); err != nil {
		t.Errorf("Check() = %v", err)
	}
	// Shortening never needs room; lengthening into free time is fine.
	if err := tab.SetEnd(ids[3], at(20)); err != nil {
		t.Errorf("shorten: %v", err)
	}
	if err := tab.SetEnd(ids[3], at(30)); err != nil {
		t.Errorf("lengthen into room: %v", err)
	}
}
