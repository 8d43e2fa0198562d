package workload

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// lwfDoc wraps lease-request elements into a workload.
func lwfDoc(requests string) string {
	return "<lease-workload name=\"t\">\n<lease-requests>\n" + requests + "</lease-requests>\n</lease-workload>\n"
}

// lwfReq is a lease-request with the given lease body.
func lwfReq(arrival, attrs, body string) string {
	return `<lease-request arrival="` + arrival + `"><lease ` + attrs + `>` +
		`<nodes><node-set numnodes="2"><res type="CPU" amount="100"/><res type="Memory" amount="1024"/></node-set></nodes>` +
		body + "</lease></lease-request>\n"
}

func TestReadLWFXMLSample(t *testing.T) {
	f, err := os.Open("testdata/sample.lwf")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := ReadLWFXML(f, "sample.lwf", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []scheduler.Request{
		// arrival 0, 2 VMs, 1 h requested, 30 min real, preemptible:
		// best-effort, external, suspendable.
		lease("be1").VMs(2).For(time.Hour).Real(30 * time.Minute).Image("foobar.img").Build(),
		// arrival 15 min, two node-sets of 1 + 3 VMs at 50/512, exact
		// "+01:00:00" = 3600 s from the start: local AR.
		lease("ar1").At(15*time.Minute).AR(time.Hour).VMs(4).Size(50, 512).For(30 * time.Minute).Build(),
		// "1:00:10:00" is one day and ten minutes.
		lease("im1").At(20 * time.Minute).Now().For(24*time.Hour + 10*time.Minute).Build(),
		// exact "1970-01-01 02:00:00" is 2 h after the epoch; with a
		// deadline (3 h) it is a deadline lease; preemptible: suspendable.
		lease("dl1").At(25*time.Minute).DeadlineKind(2*time.Hour, 3*time.Hour).VMs(4).For(15 * time.Minute).
			Class(scheduler.Suspendable).Build(),
	}
	sameRequests(t, tr.Requests, want)
	// 4 hosts of one core and 1024 MB.
	site := tr.Site
	if site == nil || site.Hosts != 4 || site.CPU != 100 || site.Memory != 1024 || len(site.NodeSets) != 1 || !site.Homogeneous() {
		t.Errorf("site %+v, want 4 hosts of 100/1024", site)
	}
}

func TestReadLWFXML(t *testing.T) {
	epoch := withOpt(func(o *Options) { o.Epoch = time.Date(2009, 1, 1, 0, 0, 0, 0, time.UTC) })
	tests := []struct {
		name  string
		opt   Options
		input string
		want  []scheduler.Request
	}{
		{
			// No id: named by position; no preemptible attribute: the
			// best-effort defaults; no software: no image.
			name:  "defaults",
			opt:   DefaultOptions(),
			input: lwfDoc(lwfReq("10", "", `<start/><duration time="60"/>`)),
			want:  []scheduler.Request{lease("1").At(sec(10)).VMs(2).For(sec(60)).Build()},
		},
		{
			name:  "preemptible with suspension off is cancellable",
			opt:   suspendOff,
			input: lwfDoc(lwfReq("00:00:10", `id="7" preemptible="TRUE"`, `<start/><duration time="00:01:00"/>`)),
			want:  []scheduler.Request{lease("7").At(sec(10)).VMs(2).For(sec(60)).Class(scheduler.Cancellable).Build()},
		},
		{
			// A preemptible AR cannot be local: it becomes external.
			name:  "preemptible advance reservation",
			opt:   DefaultOptions(),
			input: lwfDoc(lwfReq("00:00:00", `id="a" preemptible="true"`, `<start><exact time="00:10:00"/></start><duration time="00:01:00"/>`)),
			want: []scheduler.Request{lease("a").AR(10*time.Minute).VMs(2).For(sec(60)).
				Origin(scheduler.External, scheduler.Suspendable).Build()},
		},
		{
			// 2009-01-01 06:00:00 is 6 h after the 2009-01-01 epoch.
			name:  "absolute time against the epoch option",
			opt:   epoch,
			input: lwfDoc(lwfReq("00:00:00", `id="b" preemptible="false"`, `<start><exact time="2009-01-01 06:00:00"/></start><duration time="00:01:00"/>`)),
			want:  []scheduler.Request{lease("b").AR(6 * time.Hour).VMs(2).For(sec(60)).Build()},
		},
		{
			name:  "missing CPU and memory take the options",
			opt:   DefaultOptions(),
			input: lwfDoc(`<lease-request arrival="0"><lease id="c"><nodes><node-set numnodes="3"/></nodes><start/><duration time="60"/></lease></lease-request>`),
			want:  []scheduler.Request{lease("c").VMs(3).For(sec(60)).Build()},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ReadLWFXML(strings.NewReader(tc.input), "t.lwf", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			sameRequests(t, tr.Requests, tc.want)
			if tr.Site != nil {
				t.Errorf("site %+v from a file without <site>", tr.Site)
			}
		})
	}
}

func TestReadLWFXMLHeterogeneousSite(t *testing.T) {
	in := `<lease-workload><site><nodes>
<node-set numnodes="4"><res type="CPU" amount="100"/><res type="Memory" amount="1024"/></node-set>
<node-set numnodes="2"><res type="CPU" amount="200"/><res type="Memory" amount="4096"/><res type="Disk" amount="99"/></node-set>
</nodes></site></lease-workload>`
	tr, err := ReadLWFXML(strings.NewReader(in), "s.lwf", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// 4 + 2 = 6 hosts; the sets differ, so no single per-host capacity.
	s := tr.Site
	want := []NodeSet{{Hosts: 4, CPU: 100, Memory: 1024}, {Hosts: 2, CPU: 200, Memory: 4096}}
	if s.Hosts != 6 || s.CPU != 0 || s.Memory != 0 || s.Homogeneous() || len(s.NodeSets) != 2 ||
		s.NodeSets[0] != want[0] || s.NodeSets[1] != want[1] {
		t.Errorf("site %+v, want 6 hosts in %+v", s, want)
	}
}

func TestReadLWFXMLErrors(t *testing.T) {
	const body = `<start/><duration time="00:01:00"/>`
	runErrCases(t, "w.lwf", func(r *strings.Reader, name string, opt Options) (*Trace, error) {
		return ReadLWFXML(r, name, opt)
	}, []errCase{
		{name: "not XML", input: "<lease-workload>\n<lease-requests>\n</lease-workload>",
			line: 3, sentinel: ErrSyntax, msg: "not XML"},
		{name: "wrong root", input: "<workload/>", line: 1, field: "workload", sentinel: ErrSyntax, msg: "want <lease-workload>"},
		{name: "unknown element", input: lwfDoc(lwfReq("0", "", body+"<colour/>")),
			line: 3, field: "lease-workload/lease-requests/lease-request/lease/colour", sentinel: ErrSyntax, msg: "unknown element <colour>"},
		{name: "bad arrival", input: lwfDoc(lwfReq("0", "", body) + lwfReq("00:61:00", "", body)),
			line: 4, field: "lease-workload/lease-requests/lease-request[2]@arrival", sentinel: ErrBadValue, msg: "HH:MM:SS"},
		{name: "bad duration", input: lwfDoc(lwfReq("0", "", `<start/><duration time="soon"/>`)),
			line: 3, field: "lease-workload/lease-requests/lease-request/lease/duration@time", sentinel: ErrBadValue, msg: `"soon" is not a duration`},
		{name: "bad preemptible", input: lwfDoc(lwfReq("0", `preemptible="maybe"`, body)),
			line: 3, field: "lease-workload/lease-requests/lease-request/lease@preemptible", sentinel: ErrBadValue, msg: "neither true nor false"},
		{name: "missing duration", input: lwfDoc(lwfReq("0", "", "<start/>")),
			line: 3, field: "lease-workload/lease-requests/lease-request/lease", sentinel: ErrSyntax, msg: "missing <duration>"},
		{name: "negative numnodes", input: lwfDoc(`<lease-request arrival="0"><lease><nodes><node-set numnodes="-2"/></nodes>` + body + `</lease></lease-request>`),
			line: 3, field: "lease-workload/lease-requests/lease-request/lease/nodes/node-set@numnodes", sentinel: ErrBadValue, msg: "out of range"},
		{name: "different node-sets", input: lwfDoc(`<lease-request arrival="0"><lease><nodes><node-set numnodes="1"/>` +
			`<node-set numnodes="1"><res type="CPU" amount="50"/></node-set></nodes>` + body + `</lease></lease-request>`),
			line: 3, field: "lease-workload/lease-requests/lease-request/lease/nodes/node-set[2]", sentinel: ErrUnsupported, msg: "different capacities in one lease (0.5 cores and 1024 MB vs 1 core and 1024 MB)"},
		{name: "AR before arrival", input: lwfDoc(lwfReq("01:00:00", "", `<start><exact time="00:10:00"/></start><duration time="60"/>`)),
			line: 3, field: "lease-workload/lease-requests/lease-request/lease.start", sentinel: ErrInvalidRequest, msg: "at or after its arrival"},
		{name: "absolute time before the epoch", input: lwfDoc(lwfReq("0", "", `<start><exact time="1969-12-31 23:00:00"/></start><duration time="60"/>`)),
			line: 3, field: "lease-workload/lease-requests/lease-request/lease/start/exact@time", sentinel: ErrBadValue, msg: "before the epoch"},
		{name: "two starts", input: lwfDoc(lwfReq("0", "", `<start><now/><now/></start><duration time="60"/>`)),
			line: 3, field: "lease-workload/lease-requests/lease-request/lease/start/now[2]", sentinel: ErrSyntax, msg: "more than one"},
	})
}
