package workload

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// ReadJSON reads bora's own workload format in JSON: {"leases": [...]} or
// a bare list of leases. See readBora for the fields. Text that is not
// JSON, an unknown or duplicate field is a *ParseError wrapping ErrSyntax;
// a bad value one wrapping ErrBadValue; a lease failing Validate one
// wrapping ErrInvalidRequest; each names the line and the field path
// ("leases[2].duration", counting from 0). An empty input has no leases.
func ReadJSON(r io.Reader, name string, opt Options) (*Trace, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &ParseError{File: name, Msg: err.Error(), Err: ErrSyntax, Cause: err}
	}
	root, err := parseJSONTree(data, name)
	if err != nil {
		return nil, err
	}
	return readBora(name, root, opt)
}

// ReadYAML reads bora's own workload format in YAML, with the structure,
// fields and errors of ReadJSON. Unknown fields are errors (strict, like
// yaml.v3's KnownFields); anchors and aliases are followed, merge keys
// ("<<") are not supported; the file holds one YAML document.
func ReadYAML(r io.Reader, name string, opt Options) (*Trace, error) {
	root, err := parseYAMLTree(r, name)
	if err != nil {
		return nil, err
	}
	return readBora(name, root, opt)
}

// boraFields are the fields of one lease in bora's format, listed in
// docs/formats.md §5.
var boraFields = []string{"name", "user", "arrival", "kind", "start", "duration",
	"real_duration", "deadline", "vms", "cpu", "memory", "image", "class", "origin"}

// readBora walks a parsed document. Fields of a lease (all optional but
// duration):
//
//	name, user, image   text; name defaults to the lease's 1-based index
//	arrival             time of submission (default 0)
//	kind                advance-reservation | immediate | best-effort | deadline
//	start               best-effort | now | a time: the exact start of an
//	                    advance reservation, else the earliest start
//	duration            requested length
//	real_duration       actual run time (default: the requested one)
//	deadline            time by which the lease must end
//	vms                 number of VMs (default 1)
//	cpu                 cores per VM, fractional (0.5 -> 50); default opt.CPUPerVM
//	memory              MB per VM; default opt.MemoryPerVM
//	class, origin       as in package scheduler; defaults by kind, see Options
//
// Times are seconds, "[DD:]HH:MM:SS", Go durations ("2h30m"), or date-times
// "YYYY-MM-DD HH:MM:SS" / RFC 3339 relative to opt.Epoch; lengths are the
// same but for date-times. Without a kind, it follows from start: none or
// best-effort is best-effort (a deadline lease when a deadline is given),
// now is immediate, a time an advance reservation (a deadline lease when a
// deadline is given).
func readBora(file string, root *tnode, opt Options) (*Trace, error) {
	t := &Trace{}
	if root == nil || root.null {
		return t, nil
	}
	list, prefix := root, ""
	if root.kind == tMap {
		prefix = "leases"
		list = nil
		for i, k := range root.keys {
			if k != "leases" {
				return nil, pos{file: file, line: root.items[i].line, field: k}.syntax("unknown field (want leases)")
			}
			list = root.items[i]
		}
		if list == nil || list.null {
			return t, nil
		}
	}
	if list.kind != tList {
		return nil, pos{file: file, line: list.line, field: prefix}.syntax("want a list of leases")
	}
	for i, item := range list.items {
		p := pos{file: file, line: item.line, field: fmt.Sprintf("%s[%d]", prefix, i)}
		req, err := boraLease(p, item, i, opt)
		if err != nil {
			return nil, err
		}
		t.Requests = append(t.Requests, req)
	}
	return t, nil
}

// boraRaw is one lease's fields as found, each a scalar node or nil.
type boraRaw map[string]*tnode

// boraLease reads one lease.
func boraLease(p pos, n *tnode, index int, opt Options) (scheduler.Request, error) {
	req := scheduler.Request{Name: strconv.Itoa(index + 1), VMs: 1, CPU: opt.CPUPerVM, Memory: opt.MemoryPerVM}
	if n.kind != tMap {
		return req, p.syntax("want a lease (a map of fields)")
	}
	raw, err := boraFieldsOf(p, n)
	if err != nil {
		return req, err
	}
	rd := boraReader{p: p, raw: raw, epoch: opt.epoch()}
	rd.text("name", &req.Name)
	rd.text("user", &req.User)
	rd.text("image", &req.Image)
	rd.time("arrival", &req.Arrival)
	rd.length("duration", &req.Duration)
	rd.length("real_duration", &req.Real)
	rd.time("deadline", &req.Deadline)
	rd.vms(&req.VMs)
	rd.cpu(&req.CPU)
	rd.whole("memory", &req.Memory, maxMemory)
	var origin, class string
	rd.enum("origin", &origin, string(scheduler.Local), string(scheduler.External))
	rd.enum("class", &class, string(scheduler.Cancellable), string(scheduler.Suspendable),
		string(scheduler.Migratable), string(scheduler.NonPreemptable))
	if rd.err != nil {
		return req, rd.err
	}
	if err := rd.kind(&req); err != nil {
		return req, err
	}
	req.Origin, req.Class = opt.classify(req.Kind, scheduler.Origin(origin), scheduler.Class(class))
	return req, check(p, req)
}

// boraFieldsOf checks a lease's keys and keeps the non-null values.
func boraFieldsOf(p pos, n *tnode) (boraRaw, error) {
	raw := boraRaw{}
	for i, k := range n.keys {
		v := n.items[i]
		known := false
		for _, f := range boraFields {
			known = known || f == k
		}
		fp := pos{file: p.file, line: v.line, field: p.field + "." + k}
		switch {
		case !known:
			return nil, fp.syntax("unknown field (want one of %s)", strings.Join(boraFields, ", "))
		case v.kind != tScalar:
			return nil, fp.bad("want a single value, not a list or map")
		case !v.null:
			raw[k] = v
		}
	}
	return raw, nil
}

// boraReader reads the fields of one lease, keeping the first error.
type boraReader struct {
	p     pos
	raw   boraRaw
	epoch time.Time
	err   error
}

// get returns field f's text and position, ok false when absent or after
// an error.
func (rd *boraReader) get(f string) (string, pos, bool) {
	n, ok := rd.raw[f]
	if !ok || rd.err != nil {
		return "", pos{}, false
	}
	return strings.TrimSpace(n.text), pos{file: rd.p.file, line: n.line, field: rd.p.field + "." + f}, true
}

func (rd *boraReader) fail(p pos, err error) {
	if err != nil && rd.err == nil {
		rd.err = p.bad("%v", err)
	}
}

func (rd *boraReader) text(f string, dst *string) {
	if s, _, ok := rd.get(f); ok {
		*dst = s
	}
}

func (rd *boraReader) time(f string, dst *time.Duration) {
	if s, p, ok := rd.get(f); ok {
		d, err := parseTime(s, rd.epoch, true)
		if err == nil && d < 0 {
			err = valuef("%q is negative", s)
		}
		*dst = d
		rd.fail(p, err)
	}
}

func (rd *boraReader) length(f string, dst *time.Duration) {
	if s, p, ok := rd.get(f); ok {
		d, err := parseDuration(s, true)
		if err == nil && d < 0 {
			err = valuef("%q is negative", s)
		}
		*dst = d
		rd.fail(p, err)
	}
}

func (rd *boraReader) whole(f string, dst *int64, hi int64) {
	if s, p, ok := rd.get(f); ok {
		n, err := parseWhole(s, -hi, hi)
		if err == nil && n < 0 {
			err = valuef("must not be negative, got %d", n)
		}
		*dst = n
		rd.fail(p, err)
	}
}

func (rd *boraReader) vms(dst *int) {
	if s, p, ok := rd.get("vms"); ok {
		n, err := parseWhole(s, -maxVMs, maxVMs)
		if err == nil && n < 1 {
			err = valuef("must be at least 1, got %d", n)
		}
		*dst = int(n)
		rd.fail(p, err)
	}
}

func (rd *boraReader) cpu(dst *int64) {
	if s, p, ok := rd.get("cpu"); ok {
		f, err := parseNumber(s)
		if err == nil {
			*dst, err = cores(f)
		}
		rd.fail(p, err)
	}
}

func (rd *boraReader) enum(f string, dst *string, allowed ...string) {
	if s, p, ok := rd.get(f); ok {
		for _, a := range allowed {
			if s == a {
				*dst = s
				return
			}
		}
		rd.fail(p, valuef("unknown %s %q (want %s)", f, s, strings.Join(allowed, ", ")))
	}
}
