package workload

import (
	"strings"
	"testing"

	"github.com/bora-sched/bora/scheduler"
)

// withOpt returns DefaultOptions changed by f.
func withOpt(f func(*Options)) Options {
	o := DefaultOptions()
	f(&o)
	return o
}

var (
	suspendOff = withOpt(func(o *Options) { o.SuspensionOff = true })
	injected   = withOpt(func(o *Options) { o.ForceOrigin = scheduler.Local })
	smallVMs   = withOpt(func(o *Options) { o.CPUPerVM, o.MemoryPerVM = 50, 512 })
)

var swfCases = []struct {
	name  string
	opt   Options
	input string
	want  []scheduler.Request
	skips []Skip
}{
	{
		// Job 21 of the SDSC Blue trace: submit 2597 s, run 7914 s,
		// 64 requested processors, 64500 s requested.
		name:  "sdsc job 21",
		opt:   DefaultOptions(),
		input: "21 2597 31 7914 512 3903 -1 64 64500 -1 1 14 -1 -1 3 -1 -1 -1\n",
		want:  []scheduler.Request{lease("21").At(sec(2597)).VMs(64).For(sec(64500)).Real(sec(7914)).Build()},
	},
	{
		// Field 8 is -1: VMs from field 5 (8); field 9 is -1: the
		// duration is the run time, 100 s, and so is the real time.
		name:  "fallbacks to fields 5 and 4",
		opt:   DefaultOptions(),
		input: "1 10 0 100 8 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1",
		want:  []scheduler.Request{lease("1").At(sec(10)).VMs(8).For(sec(100)).Real(sec(100)).Build()},
	},
	{
		// Run 0 s is lifted to 1 s; run 7238 s > requested 7200 s is
		// cut to 7200 s; unknown run (-1) with status 1 runs the whole
		// requested 600 s.
		name: "real time clamped to [1 s, requested]",
		opt:  DefaultOptions(),
		input: "1 0 0 0 1 -1 -1 1 600 -1 1 -1 -1 -1 -1 -1 -1 -1\n" +
			"2 5 0 7238 256 103.91 -1 32 7200 -1 5 22 -1 -1 2 -1 -1 -1\n" +
			"3 9 0 -1 1 -1 -1 1 600 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
		want: []scheduler.Request{
			lease("1").For(sec(600)).Real(sec(1)).Build(),
			lease("2").At(sec(5)).VMs(32).For(sec(7200)).Real(sec(7200)).Build(),
			lease("3").At(sec(9)).For(sec(600)).Real(sec(600)).Build(),
		},
	},
	{
		// Line 1 a comment, line 2 blank; line 3 cancelled while
		// queued (run -1, status 5); line 4 no processors; line 5 no
		// duration; line 6 the one lease.
		name: "comments, blanks and skipped jobs",
		opt:  DefaultOptions(),
		input: "; Version: 2.2\n\n" +
			"590 66109 74 -1 -1 -1 -1 1 300 -1 5 42 -1 -1 1 -1 -1 -1\n" +
			"7 1 0 10 -1 -1 -1 -1 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n" +
			"8 1 0 -1 4 -1 -1 4 -1 -1 0 -1 -1 -1 -1 -1 -1 -1\n" +
			"  9 2 0 30 2 -1 -1 2 60 -1 1 -1 -1 -1 -1 -1 -1 -1  \n",
		want: []scheduler.Request{lease("9").At(sec(2)).VMs(2).For(sec(60)).Real(sec(30)).Build()},
		skips: []Skip{{Line: 3, Name: "590", Reason: SkipCancelled}, {Line: 4, Name: "7", Reason: SkipNoVMs},
			{Line: 5, Name: "8", Reason: SkipNoDuration}},
	},
	{
		name:  "suspension off makes leases cancellable",
		opt:   suspendOff,
		input: "5 0 0 10 1 -1 -1 1 60 -1 1 -1 -1 -1 -1 -1 -1 -1",
		want:  []scheduler.Request{lease("5").For(sec(60)).Real(sec(10)).Class(scheduler.Cancellable).Build()},
	},
	{
		name:  "forced local origin is non-preemptable",
		opt:   injected,
		input: "5 0 0 10 1 -1 -1 1 60 -1 1 -1 -1 -1 -1 -1 -1 -1",
		want: []scheduler.Request{lease("5").For(sec(60)).Real(sec(10)).
			Origin(scheduler.Local, scheduler.NonPreemptable).Build()},
	},
	{
		name:  "per-VM size from options",
		opt:   smallVMs,
		input: "5 0 0 10 1 -1 -1 1 60 -1 1 -1 -1 -1 -1 -1 -1 -1",
		want:  []scheduler.Request{lease("5").For(sec(60)).Real(sec(10)).Size(50, 512).Build()},
	},
}

func TestReadSWF(t *testing.T) {
	tests := swfCases
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ReadSWF(strings.NewReader(tc.input), "t.swf", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			sameRequests(t, tr.Requests, tc.want)
			if tr.Skipped != len(tc.skips) || len(tr.Skips) != len(tc.skips) {
				t.Fatalf("skipped %d %+v, want %+v", tr.Skipped, tr.Skips, tc.skips)
			}
			for i := range tc.skips {
				if tr.Skips[i] != tc.skips[i] {
					t.Errorf("skip %d = %+v, want %+v", i, tr.Skips[i], tc.skips[i])
				}
			}
		})
	}
}

func TestReadSWFErrors(t *testing.T) {
	const ok = "1 0 0 10 1 -1 -1 1 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
	runErrCases(t, "sdsc.swf", func(r *strings.Reader, name string, opt Options) (*Trace, error) {
		return ReadSWF(r, name, opt)
	}, []errCase{
		{name: "wrong field count", input: ok + "2 0 0 10 1 -1 -1 1 60 -1 1 -1 -1 -1 -1 -1 -1\n",
			line: 2, sentinel: ErrSyntax, msg: "want 18 fields, got 17"},
		{name: "non-numeric requested time", input: ";c\n" + ok + "2 0 0 10 1 -1 -1 1 abc -1 1 -1 -1 -1 -1 -1 -1 -1\n",
			line: 3, field: "field 9 (requested time)", sentinel: ErrBadValue, msg: `"abc" is not a number`},
		{name: "non-numeric unused field", input: "2 0 0 10 1 x -1 1 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
			line: 1, field: "field 6 (average CPU time)", sentinel: ErrBadValue, msg: `"x" is not a number`},
		{name: "fractional processors", input: "2 0 0 10 1 -1 -1 4.5 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
			line: 1, field: "field 8 (requested processors)", sentinel: ErrBadValue, msg: "not a whole number"},
		{name: "hexadecimal is not a number", input: "2 0x10 0 10 1 -1 -1 1 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
			line: 1, field: "field 2 (submit time)", sentinel: ErrBadValue, msg: "is not a number"},
		{name: "submit time out of range", input: "2 1e300 0 10 1 -1 -1 1 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
			line: 1, field: "field 2 (submit time)", sentinel: ErrBadValue, msg: "out of range"},
		{name: "negative submit time fails validation", input: "2 -5 0 10 1 -1 -1 1 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
			line: 1, field: "arrival", sentinel: ErrInvalidRequest, msg: "must not be negative"},
	})
}

func TestSWFErrorText(t *testing.T) {
	_, err := ReadSWF(strings.NewReader("\n\n\n\n\n\n\n\n\n\n\n2 0 0 10 1 -1 -1 1 abc -1 1 -1 -1 -1 -1 -1 -1 -1\n"), "sdsc.swf", DefaultOptions())
	const want = `sdsc.swf:12: field 9 (requested time): "abc" is not a number`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}
