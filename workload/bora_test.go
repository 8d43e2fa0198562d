package workload

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// sampleWant is what testdata/sample.yaml and sample.json hold.
func sampleWant() []scheduler.Request {
	return []scheduler.Request{
		// start "02:00:00" = 7200 s; 2 cores = 200.
		lease("nightly-build").User("alice").AR(2*time.Hour).For(90*time.Minute).VMs(4).Size(200, 2048).
			Image("debian-12.img").Build(),
		// 0.5 cores = 50; "04:00:00" = 4 h.
		lease("batch-sweep").User("bob").At(10*time.Minute).For(4*time.Hour).Real(2*time.Hour+45*time.Minute).
			VMs(16).Size(50, 1024).Image("sweep.img").Build(),
		// 900 s = 15 min; default 1 VM of 100/1024.
		lease("debug-shell").User("carol").At(15 * time.Minute).Now().For(30 * time.Minute).Build(),
		lease("report").User("dave").At(20*time.Minute).DeadlineKind(time.Hour, 6*time.Hour).For(2 * time.Hour).VMs(8).Build(),
		lease("guest-job").At(30 * time.Minute).For(time.Hour).Class(scheduler.Cancellable).Build(),
	}
}

func TestReadSamples(t *testing.T) {
	for _, tc := range []struct {
		file string
		read func(f *os.File) (*Trace, error)
	}{
		{"testdata/sample.yaml", func(f *os.File) (*Trace, error) { return ReadYAML(f, f.Name(), DefaultOptions()) }},
		{"testdata/sample.json", func(f *os.File) (*Trace, error) { return ReadJSON(f, f.Name(), DefaultOptions()) }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tr, err := tc.read(f)
			if err != nil {
				t.Fatal(err)
			}
			sameRequests(t, tr.Requests, sampleWant())
		})
	}
}

var boraCases = []struct {
	name string
	yaml string
	json string
	opt  Options
	want []scheduler.Request
}{
	{
		// A bare list; no name: the 1-based index.
		name: "bare list",
		yaml: "- duration: 60\n- {duration: 2m, vms: 2}\n",
		json: `[{"duration": 60}, {"duration": "2m", "vms": 2}]`,
		opt:  DefaultOptions(),
		want: []scheduler.Request{lease("1").For(sec(60)).Build(), lease("2").For(2 * time.Minute).VMs(2).Build()},
	},
	{
		// A time start without kind is an AR; with a deadline, a
		// deadline lease; a deadline alone, a deadline lease from 0.
		name: "kind from start and deadline",
		yaml: "leases:\n- {start: 100, duration: 10}\n- {start: 100, duration: 10, deadline: 200}\n- {duration: 10, deadline: 200}\n",
		json: `{"leases": [{"start": 100, "duration": 10}, {"start": 100, "duration": 10, "deadline": 200}, {"duration": 10, "deadline": 200}]}`,
		opt:  DefaultOptions(),
		want: []scheduler.Request{
			lease("1").AR(sec(100)).For(sec(10)).Build(),
			lease("2").DeadlineKind(sec(100), sec(200)).For(sec(10)).Build(),
			lease("3").DeadlineKind(0, sec(200)).For(sec(10)).Build(),
		},
	},
	{
		// A best-effort lease with a time start keeps it as its
		// earliest start; a preemptable class alone implies external;
		// origin local alone implies non-preemptable.
		name: "best-effort earliest start and partial class/origin",
		yaml: "leases:\n- {kind: best-effort, start: 1h, duration: 1h, class: migratable}\n- {kind: best-effort, duration: 1h, origin: local}\n",
		json: `{"leases": [{"kind": "best-effort", "start": "1h", "duration": "1h", "class": "migratable"}, {"kind": "best-effort", "duration": "1h", "origin": "local"}]}`,
		opt:  DefaultOptions(),
		want: []scheduler.Request{
			func() scheduler.Request {
				r := lease("1").For(time.Hour).Class(scheduler.Migratable).Build()
				r.Start = time.Hour
				return r
			}(),
			lease("2").For(time.Hour).Origin(scheduler.Local, scheduler.NonPreemptable).Build(),
		},
	},
	{
		// --inject: local and non-preemptable whatever the file says.
		name: "forced local",
		yaml: "leases: [{duration: 1h, origin: external, class: suspendable}]",
		json: `{"leases": [{"duration": "1h", "origin": "external", "class": "suspendable"}]}`,
		opt:  injected,
		want: []scheduler.Request{lease("1").For(time.Hour).Origin(scheduler.Local, scheduler.NonPreemptable).Build()},
	},
	{
		name: "nulls are absent fields; empty leases",
		yaml: "leases:\n- {duration: 1h, deadline: ~, image: null}\n",
		json: `{"leases": [{"duration": "1h", "deadline": null, "image": null}]}`,
		opt:  DefaultOptions(),
		want: []scheduler.Request{lease("1").For(time.Hour).Build()},
	},
	{
		name: "empty document", yaml: "# nothing\n", json: "  \n", opt: DefaultOptions(),
	},
	{
		name: "null leases", yaml: "leases:\n", json: `{"leases": null}`, opt: DefaultOptions(),
	},
}

func TestReadBora(t *testing.T) {
	tests := boraCases
	for _, tc := range tests {
		t.Run(tc.name+"/yaml", func(t *testing.T) {
			tr, err := ReadYAML(strings.NewReader(tc.yaml), "t.yaml", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			sameRequests(t, tr.Requests, tc.want)
		})
		t.Run(tc.name+"/json", func(t *testing.T) {
			tr, err := ReadJSON(strings.NewReader(tc.json), "t.json", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			sameRequests(t, tr.Requests, tc.want)
		})
	}
}

func TestReadJSONErrors(t *testing.T) {
	runErrCases(t, "l.json", func(r *strings.Reader, name string, opt Options) (*Trace, error) {
		return ReadJSON(r, name, opt)
	}, []errCase{
		{name: "unknown field", input: "{\"leases\": [\n {\"duration\": 60},\n {\"duration\": 60,\n  \"colour\": \"red\"}]}",
			line: 4, field: "leases[1].colour", sentinel: ErrSyntax, msg: "unknown field"},
		{name: "unknown top-level field", input: "{\"lease\": []}", line: 1, field: "lease", sentinel: ErrSyntax, msg: "want leases"},
		{name: "not JSON", input: "{\"leases\": [\n{\"duration\" 60}]}", line: 2, sentinel: ErrSyntax, msg: "not JSON"},
		{name: "trailing text", input: "[]\n]", line: 2, sentinel: ErrSyntax, msg: "after the JSON document"},
		{name: "duplicate key", input: "[{\"vms\": 1,\n \"vms\": 2}]", line: 2, field: "vms", sentinel: ErrSyntax, msg: "duplicate"},
		{name: "negative VMs", input: "[{\"duration\": 60,\n \"vms\": -3}]", line: 2, field: "[0].vms", sentinel: ErrBadValue, msg: "at least 1, got -3"},
		{name: "bad time", input: "[{\"duration\": \"an hour\"}]", line: 1, field: "[0].duration", sentinel: ErrBadValue, msg: "not a duration"},
		{name: "bad kind", input: "[{\"duration\": 60, \"kind\": \"asap\"}]", line: 1, field: "[0].kind", sentinel: ErrBadValue, msg: "unknown kind"},
		{name: "bad class", input: "[{\"duration\": 60, \"class\": \"gold\"}]", line: 1, field: "[0].class", sentinel: ErrBadValue, msg: "unknown class"},
		{name: "AR without start", input: "[{\"duration\": 60, \"kind\": \"advance-reservation\"}]", line: 1, field: "[0].start", sentinel: ErrBadValue, msg: "needs a start"},
		{name: "list where a value belongs", input: "[{\"duration\": [60]}]", line: 1, field: "[0].duration", sentinel: ErrBadValue, msg: "single value"},
		{name: "local preemptable", input: "[{\"duration\": 60,\n \"origin\": \"local\", \"class\": \"suspendable\"}]",
			line: 1, field: "[0].class", sentinel: ErrInvalidRequest, msg: "non-preemptable"},
		{name: "not a list", input: "{\"leases\": 5}", line: 1, field: "leases", sentinel: ErrSyntax, msg: "want a list"},
	})
}

func TestReadYAMLErrors(t *testing.T) {
	runErrCases(t, "l.yaml", func(r *strings.Reader, name string, opt Options) (*Trace, error) {
		return ReadYAML(r, name, opt)
	}, []errCase{
		{name: "unknown field", input: "leases:\n  - duration: 60\n    colour: red\n",
			line: 3, field: "leases[0].colour", sentinel: ErrSyntax, msg: "unknown field"},
		{name: "not YAML", input: "leases:\n\t- duration: 60\n", line: 2, sentinel: ErrSyntax, msg: "not YAML"},
		{name: "negative VMs", input: "leases:\n  - duration: 60\n  - duration: 60\n    vms: -3\n",
			line: 4, field: "leases[1].vms", sentinel: ErrBadValue, msg: "at least 1, got -3"},
		{name: "bad start", input: "- duration: 60\n  start: tomorrow\n", line: 2, field: "[0].start", sentinel: ErrBadValue, msg: "not a time"},
		{name: "fractional memory", input: "- duration: 60\n  memory: 1.5\n", line: 2, field: "[0].memory", sentinel: ErrBadValue, msg: "whole number"},
		{name: "negative cpu", input: "- duration: 60\n  cpu: -1\n", line: 2, field: "[0].cpu", sentinel: ErrBadValue, msg: "out of range"},
		{name: "immediate with a start", input: "- {duration: 60, kind: immediate, start: 5}\n", line: 1, field: "[0].start", sentinel: ErrBadValue, msg: "starts now"},
		{name: "two documents", input: "- duration: 60\n---\n- duration: 60\n", line: 2, sentinel: ErrSyntax, msg: "more than one"},
		{name: "duplicate key", input: "- duration: 60\n  duration: 70\n", line: 2, field: "duration", sentinel: ErrSyntax, msg: "duplicate"},
		{name: "zero duration", input: "- duration: 0\n", line: 1, field: "[0].duration", sentinel: ErrInvalidRequest, msg: "positive"},
	})
}

func TestYAMLAnchors(t *testing.T) {
	// The alias repeats the anchored lease: two leases of 60 s, named by
	// their index.
	tr, err := ReadYAML(strings.NewReader("leases:\n- &a {duration: 60}\n- *a\n"), "a.yaml", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	sameRequests(t, tr.Requests, []scheduler.Request{lease("1").For(sec(60)).Build(), lease("2").For(sec(60)).Build()})
}

func TestTreeLimits(t *testing.T) {
	// Nine levels of ten aliases each would expand to 10^9 nodes.
	bomb := "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i <= 9; i++ {
		bomb += fmt.Sprintf("a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n",
			i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	for _, c := range []struct {
		name string
		read func() (*Trace, error)
		msg  string
	}{
		{"yaml alias bomb", func() (*Trace, error) { return ReadYAML(strings.NewReader(bomb), "b.yaml", DefaultOptions()) }, "alias"},
		{"yaml deep", func() (*Trace, error) { return ReadYAML(strings.NewReader(deep), "d.yaml", DefaultOptions()) }, "too deep"},
		{"yaml merge key", func() (*Trace, error) {
			return ReadYAML(strings.NewReader("- &a {duration: 1}\n- {<<: *a, vms: 2}\n"), "m.yaml", DefaultOptions())
		}, "merge keys"},
		{"json deep", func() (*Trace, error) { return ReadJSON(strings.NewReader(deep), "d.json", DefaultOptions()) }, "too deep"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.read()
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrSyntax) || !strings.Contains(pe.Msg, c.msg) {
				t.Errorf("error %v, want a syntax ParseError about %q", err, c.msg)
			}
		})
	}
}
