package workload

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// sec is n seconds.
func sec(n int64) time.Duration { return time.Duration(n) * time.Second }

// lease builds an expected request; the defaults are those of a
// best-effort lease under DefaultOptions.
type leaseBuilder struct{ r scheduler.Request }

func lease(name string) *leaseBuilder {
	return &leaseBuilder{scheduler.Request{Name: name, Kind: scheduler.BestEffort, VMs: 1, CPU: 100, Memory: 1024,
		Class: scheduler.Suspendable, Origin: scheduler.External}}
}

func (b *leaseBuilder) At(arrival time.Duration) *leaseBuilder { b.r.Arrival = arrival; return b }
func (b *leaseBuilder) VMs(n int) *leaseBuilder                { b.r.VMs = n; return b }
func (b *leaseBuilder) For(d time.Duration) *leaseBuilder      { b.r.Duration = d; return b }
func (b *leaseBuilder) Real(d time.Duration) *leaseBuilder     { b.r.Real = d; return b }
func (b *leaseBuilder) Size(cpu, mem int64) *leaseBuilder      { b.r.CPU, b.r.Memory = cpu, mem; return b }
func (b *leaseBuilder) Image(s string) *leaseBuilder           { b.r.Image = s; return b }
func (b *leaseBuilder) User(s string) *leaseBuilder            { b.r.User = s; return b }
func (b *leaseBuilder) Deadline(d time.Duration) *leaseBuilder { b.r.Deadline = d; return b }
func (b *leaseBuilder) Class(c scheduler.Class) *leaseBuilder  { b.r.Class = c; return b }

func (b *leaseBuilder) Origin(o scheduler.Origin, c scheduler.Class) *leaseBuilder {
	b.r.Origin, b.r.Class = o, c
	return b
}

// AR makes the lease an advance reservation starting at start: local and
// non-preemptable by default.
func (b *leaseBuilder) AR(start time.Duration) *leaseBuilder {
	b.r.Kind, b.r.Start = scheduler.AdvanceReservation, start
	return b.Origin(scheduler.Local, scheduler.NonPreemptable)
}

// Now makes the lease immediate: local and non-preemptable by default.
func (b *leaseBuilder) Now() *leaseBuilder {
	b.r.Kind = scheduler.Immediate
	return b.Origin(scheduler.Local, scheduler.NonPreemptable)
}

// DeadlineKind makes the lease a deadline lease ending by dl, starting no
// earlier than start: external and migratable by default.
func (b *leaseBuilder) DeadlineKind(start, dl time.Duration) *leaseBuilder {
	b.r.Kind, b.r.Start, b.r.Deadline = scheduler.Deadline, start, dl
	return b.Origin(scheduler.External, scheduler.Migratable)
}

func (b *leaseBuilder) Build() scheduler.Request { return b.r }

// sameRequests compares two lists field by field, naming the difference.
func sameRequests(t *testing.T, got, want []scheduler.Request) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d requests, want %d:\n got  %+v\n want %+v", len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d:\n got  %+v\n want %+v", i, got[i], want[i])
		}
	}
}

// errCase is a malformed input and where its error must point.
type errCase struct {
	name     string
	input    string
	line     int    // expected ParseError.Line
	field    string // expected ParseError.Field
	sentinel error  // expected errors.Is target
	msg      string // a substring of the message
}

type readerFunc func(r *strings.Reader, name string, opt Options) (*Trace, error)

// checkParseError asserts that err is a *ParseError at the case's place.
func checkParseError(t *testing.T, file string, err error, c errCase) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one at line %d field %q", c.line, c.field)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
	if pe.File != file || pe.Line != c.line || pe.Field != c.field {
		t.Errorf("error %q at file %q line %d field %q, want %q line %d field %q",
			err, pe.File, pe.Line, pe.Field, file, c.line, c.field)
	}
	if !errors.Is(err, c.sentinel) {
		t.Errorf("error %q does not wrap %v", err, c.sentinel)
	}
	if !strings.Contains(pe.Msg, c.msg) {
		t.Errorf("message %q does not contain %q", pe.Msg, c.msg)
	}
}

// runErrCases feeds each case to read and checks the error.
func runErrCases(t *testing.T, file string, read readerFunc, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := read(strings.NewReader(c.input), file, DefaultOptions())
			if tr != nil {
				t.Errorf("got a trace with an error")
			}
			checkParseError(t, file, err, c)
		})
	}
}

// allValid fails when a request of tr does not validate.
func allValid(t testing.TB, tr *Trace) {
	t.Helper()
	for i, r := range tr.Requests {
		if err := r.Validate(); err != nil {
			t.Fatalf("request %d %+v does not validate: %v", i, r, err)
		}
	}
}
