package workload

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// lwfLineFieldNames names the 10 fields of the LWF line format, 1-based.
var lwfLineFieldNames = [...]string{
	"", "request time", "start time", "requested duration", "real duration",
	"VMs", "CPU", "memory", "extra disk", "image", "image size",
}

const lwfLineFields = 10

// ReadLWFLines reads Haizea's older line format of lease workloads
// (docs/formats.md §3): one lease per line, ten fields: request
// time, start time (-1 for best-effort, else an advance reservation
// starting then), requested duration, real duration, VMs, CPU in cores,
// memory MB, extra disk MB, image name (single-quoted, no spaces), image
// size MB; times in seconds from the simulation start. Blank lines and
// lines starting with '#' are skipped. Leases are named by their line
// number. A real duration of -1 means unknown (the requested one); a
// larger real duration is cut to the requested one. Origin and class
// follow opt's defaults by kind.
//
// A line without 10 fields, with a non-number where a number belongs or a
// badly quoted image is a *ParseError wrapping ErrSyntax or ErrBadValue; a
// lease that fails Validate is one wrapping ErrInvalidRequest.
func ReadLWFLines(r io.Reader, name string, opt Options) (*Trace, error) {
	t := &Trace{}
	err := readLines(r, name, func(line int, text string) error {
		s := strings.TrimSpace(text)
		if s == "" || strings.HasPrefix(s, "#") {
			return nil
		}
		p := pos{file: name, line: line}
		req, err := lwfLine(p, strings.Fields(s), opt)
		if err != nil {
			return err
		}
		req.Name = fmt.Sprint(line)
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

// lwfLine converts the fields of one line into a request.
func lwfLine(p pos, f []string, opt Options) (scheduler.Request, error) {
	var req scheduler.Request
	if len(f) != lwfLineFields {
		return req, p.syntax("want %d fields, got %d", lwfLineFields, len(f))
	}
	var err error
	at := func(i int) pos { return p.at(fmt.Sprintf("field %d (%s)", i, lwfLineFieldNames[i])) }
	dur := func(i int) (d time.Duration) {
		if err == nil {
			if d, err = parseSeconds(f[i-1]); err != nil {
				err = at(i).bad("%v", err)
			}
		}
		return d
	}
	whole := func(i int, lo, hi int64) (n int64) {
		if err == nil {
			if n, err = parseWhole(f[i-1], lo, hi); err != nil {
				err = at(i).bad("%v", err)
			}
		}
		return n
	}
	req.Arrival, req.Start, req.Duration, req.Real = dur(1), dur(2), dur(3), dur(4)
	req.VMs = int(whole(5, 0, maxVMs))
	req.Memory = whole(7, 0, maxMemory)
	whole(8, 0, maxMemory)
	whole(10, 0, maxMemory)
	if err != nil {
		return req, err
	}
	if req.CPU, err = lwfCores(f[5]); err != nil {
		return req, at(6).bad("%v", err)
	}
	if req.Image, err = unquoteImage(f[8]); err != nil {
		return req, at(9).bad("%v", err)
	}
	return lwfLineKind(req, f, at, opt)
}

// lwfLineKind sets the kind from the start field, the real duration and
// the origin and class.
func lwfLineKind(req scheduler.Request, f []string, at func(int) pos, opt Options) (scheduler.Request, error) {
	req.Kind = scheduler.AdvanceReservation
	if f[1] == "-1" {
		req.Kind, req.Start = scheduler.BestEffort, 0
	} else if req.Start < 0 {
		return req, at(2).bad("%s is neither -1 (best-effort) nor a start time", f[1])
	}
	switch {
	case f[3] == "-1":
		req.Real = 0
	case req.Real < 0:
		return req, at(4).bad("%s is negative", f[3])
	case req.Real > req.Duration:
		req.Real = req.Duration
	}
	req.Origin, req.Class = opt.classify(req.Kind, "", "")
	return req, nil
}

// lwfCores reads a CPU count in cores (possibly fractional).
func lwfCores(s string) (int64, error) {
	f, err := parseNumber(s)
	if err != nil {
		return 0, err
	}
	return cores(f)
}

// unquoteImage strips the single quotes around an image name.
func unquoteImage(s string) (string, error) {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		s = s[1 : len(s)-1]
	}
	if strings.Contains(s, "'") {
		return "", valuef("%s is not a quoted image name such as 'NONE.img'", s)
	}
	return s, nil
}
