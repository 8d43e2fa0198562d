package workload

import (
	"strings"
	"testing"

	"github.com/bora-sched/bora/scheduler"
)

func TestReadLWFLines(t *testing.T) {
	tests := []struct {
		name  string
		opt   Options
		input string
		want  []scheduler.Request
	}{
		{
			// The second line of local-work_05-dur_3h-size_2medium.lwf:
			// requested at 0, starting at 56449 s, 11472 s, 44 VMs of one
			// core and 1024 MB. Leases are named by line number.
			name:  "shipped advance reservation",
			opt:   DefaultOptions(),
			input: "0 0 11695 11695 42 1 1024 0 'NONE.img' 600\n0 56449 11472 11472 44 1 1024 0 'NONE.img' 600\n",
			want: []scheduler.Request{
				lease("1").AR(0).For(sec(11695)).Real(sec(11695)).VMs(42).Image("NONE.img").Build(),
				lease("2").AR(sec(56449)).For(sec(11472)).Real(sec(11472)).VMs(44).Image("NONE.img").Build(),
			},
		},
		{
			// Start -1: best-effort, external, suspendable; 0.5 cores is
			// 50 hundredths; real 900 s > requested 600 s is cut to 600 s;
			// an unquoted image name is taken as is. Line 1 is a comment.
			name:  "best-effort with fractional CPU",
			opt:   DefaultOptions(),
			input: "# request start dur real vms cpu mem disk image size\n30 -1 600 900 3 0.5 2048 10 base.img 1024\n",
			want:  []scheduler.Request{lease("2").At(sec(30)).For(sec(600)).Real(sec(600)).VMs(3).Size(50, 2048).Image("base.img").Build()},
		},
		{
			// Real -1 is unknown: Real 0, which means the requested time.
			name:  "unknown real duration",
			opt:   DefaultOptions(),
			input: "\n\n10 100 60 -1 1 2 512 0 'x.img' 600",
			want:  []scheduler.Request{lease("3").At(sec(10)).AR(sec(100)).For(sec(60)).Size(200, 512).Image("x.img").Build()},
		},
		{
			name:  "forced local best-effort",
			opt:   injected,
			input: "30 -1 600 600 1 1 1024 0 'NONE.img' 600",
			want: []scheduler.Request{lease("1").At(sec(30)).For(sec(600)).Real(sec(600)).Image("NONE.img").
				Origin(scheduler.Local, scheduler.NonPreemptable).Build()},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ReadLWFLines(strings.NewReader(tc.input), "t.lwf", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			sameRequests(t, tr.Requests, tc.want)
		})
	}
}

func TestReadLWFLinesErrors(t *testing.T) {
	const ok = "0 0 60 60 1 1 1024 0 'NONE.img' 600\n"
	runErrCases(t, "local.lwf", func(r *strings.Reader, name string, opt Options) (*Trace, error) {
		return ReadLWFLines(r, name, opt)
	}, []errCase{
		{name: "wrong field count", input: ok + "0 0 60 60 1 1 1024 0 'NONE.img'\n",
			line: 2, sentinel: ErrSyntax, msg: "want 10 fields, got 9"},
		{name: "non-numeric VMs", input: ok + ok + "0 0 60 60 many 1 1024 0 'NONE.img' 600\n",
			line: 3, field: "field 5 (VMs)", sentinel: ErrBadValue, msg: `"many" is not a number`},
		{name: "negative VMs", input: "0 0 60 60 -4 1 1024 0 'NONE.img' 600\n",
			line: 1, field: "field 5 (VMs)", sentinel: ErrBadValue, msg: "out of range"},
		{name: "zero VMs fails validation", input: "0 0 60 60 0 1 1024 0 'NONE.img' 600\n",
			line: 1, field: "vms", sentinel: ErrInvalidRequest, msg: "at least 1"},
		{name: "bad start", input: "0 -7 60 60 1 1 1024 0 'NONE.img' 600\n",
			line: 1, field: "field 2 (start time)", sentinel: ErrBadValue, msg: "neither -1"},
		{name: "start before request", input: "100 50 60 60 1 1 1024 0 'NONE.img' 600\n",
			line: 1, field: "start", sentinel: ErrInvalidRequest, msg: "at or after its arrival"},
		{name: "badly quoted image", input: "0 0 60 60 1 1 1024 0 'NONE.img 600\n",
			line: 1, field: "field 9 (image)", sentinel: ErrBadValue, msg: "quoted image name"},
		{name: "negative real", input: "0 0 60 -5 1 1 1024 0 'NONE.img' 600\n",
			line: 1, field: "field 4 (real duration)", sentinel: ErrBadValue, msg: "negative"},
		{name: "zero duration", input: "0 0 0 0 1 1 1024 0 'NONE.img' 600\n",
			line: 1, field: "duration", sentinel: ErrInvalidRequest, msg: "positive"},
	})
}
