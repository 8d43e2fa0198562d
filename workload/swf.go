package workload

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// swfFieldNames names the 18 SWF fields, 1-based, for error messages.
var swfFieldNames = [...]string{
	"", "job number", "submit time", "wait time", "run time",
	"allocated processors", "average CPU time", "used memory",
	"requested processors", "requested time", "requested memory", "status",
	"user", "group", "executable", "queue", "partition", "preceding job",
	"think time",
}

const swfFields = 18

// ReadSWF reads a Standard Workload Format trace: one best-effort lease
// per job (docs/formats.md §1). Lines starting with ';' and blank lines are
// skipped. For each job: Name = field 1, Arrival = field 2, VMs = field 8
// (requested processors; field 5 when -1), Duration = field 9 (requested
// time; field 4 when at most 0), Real = field 4 clamped to [1 s, Duration]
// (the full Duration when field 4 is unknown), CPU and Memory per VM from
// opt, origin and class by opt's best-effort defaults. Jobs cancelled
// while queued (field 4 < 0 and status 5) and jobs with no usable VM count
// or duration are skipped and listed in Trace.Skips.
//
// A line without 18 fields, or with a field that is not a number, is a
// *ParseError wrapping ErrSyntax or ErrBadValue; a job whose lease fails
// Validate is one wrapping ErrInvalidRequest.
func ReadSWF(r io.Reader, name string, opt Options) (*Trace, error) {
	t := &Trace{}
	err := readLines(r, name, func(line int, text string) error {
		s := strings.TrimSpace(text)
		if s == "" || strings.HasPrefix(s, ";") {
			return nil
		}
		p := pos{file: name, line: line}
		req, skip, err := swfJob(p, strings.Fields(s), opt)
		switch {
		case err != nil:
			return err
		case skip != "":
			t.skip(line, req.Name, skip)
			return nil
		}
		if err := check(p, req); err != nil {
			return err
		}
		t.Requests = append(t.Requests, req)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// swfRecord holds the numeric fields of one job that the conversion uses.
type swfRecord struct {
	submit, run, requested time.Duration
	allocated, procs       int64
	status                 int64
}

// swfJob converts the fields of one line into a request, or says why the
// job is skipped.
func swfJob(p pos, f []string, opt Options) (scheduler.Request, SkipReason, error) {
	if len(f) != swfFields {
		return scheduler.Request{}, "", p.syntax("want %d fields, got %d", swfFields, len(f))
	}
	rec, err := parseSWFRecord(p, f)
	if err != nil {
		return scheduler.Request{}, "", err
	}
	req := scheduler.Request{Name: f[0], Arrival: rec.submit, Kind: scheduler.BestEffort,
		CPU: opt.CPUPerVM, Memory: opt.MemoryPerVM}
	if rec.run < 0 && rec.status == 5 {
		return req, SkipCancelled, nil
	}
	vms := rec.procs
	if vms < 1 {
		vms = rec.allocated
	}
	if vms < 1 {
		return req, SkipNoVMs, nil
	}
	req.VMs = int(vms)
	req.Duration = rec.requested
	if req.Duration <= 0 {
		req.Duration = rec.run
	}
	if req.Duration <= 0 {
		return req, SkipNoDuration, nil
	}
	req.Real = req.Duration
	if rec.run >= 0 {
		req.Real = min(max(rec.run, time.Second), req.Duration)
	}
	req.Origin, req.Class = opt.classify(req.Kind, "", "")
	return req, "", nil
}

// parseSWFRecord checks that every field is a number and reads the ones
// the conversion uses.
func parseSWFRecord(p pos, f []string) (swfRecord, error) {
	var rec swfRecord
	for i, s := range f {
		if _, err := parseNumber(s); err != nil {
			return rec, swfPos(p, i).bad("%v", err)
		}
	}
	var err error
	seconds := func(i int, d *time.Duration) {
		if err == nil {
			if *d, err = parseSeconds(f[i-1]); err != nil {
				err = swfPos(p, i-1).bad("%v", err)
			}
		}
	}
	whole := func(i int, n *int64, hi int64) {
		if err == nil {
			if *n, err = parseWhole(f[i-1], -1, hi); err != nil {
				err = swfPos(p, i-1).bad("%v", err)
			}
		}
	}
	whole(1, new(int64), 1<<62)
	seconds(2, &rec.submit)
	seconds(4, &rec.run)
	whole(5, &rec.allocated, maxVMs)
	whole(8, &rec.procs, maxVMs)
	seconds(9, &rec.requested)
	whole(11, &rec.status, 1<<30)
	return rec, err
}

// swfPos names 0-based field i as "field N (name)".
func swfPos(p pos, i int) pos {
	return p.at(fmt.Sprintf("field %d (%s)", i+1, swfFieldNames[i+1]))
}
