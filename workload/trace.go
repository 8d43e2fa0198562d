package workload

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bora-sched/bora/scheduler"
)

// Trace is what a reader returns: the lease requests in file order (sorted
// by arrival when read through ReadFile), the jobs it skipped and why, and
// the simulated cluster when the file describes one.
type Trace struct {
	Requests []scheduler.Request
	Skipped  int    // jobs not turned into leases; len(Skips)
	Skips    []Skip // each skipped job with its reason
	Site     *Site  // nil unless the file gives a site (LWF XML <site>)
}

// SkipReason says why a trace job was not turned into a lease.
type SkipReason string

// The reasons a job is skipped rather than rejected as malformed.
const (
	// SkipCancelled: an SWF job cancelled while queued (run time < 0,
	// status 5); it never ran, Haizea drops it too.
	SkipCancelled SkipReason = "cancelled-before-start"
	// SkipNoVMs: an SWF job with no usable processor count (fields 8
	// and 5 both below 1).
	SkipNoVMs SkipReason = "no-vms"
	// SkipNoDuration: an SWF job with no usable duration (fields 9 and 4
	// both at most 0).
	SkipNoDuration SkipReason = "no-duration"
)

// Skip is one job a reader skipped.
type Skip struct {
	Line   int
	Name   string // the job number
	Reason SkipReason
}

func (t *Trace) skip(line int, name string, why SkipReason) {
	t.Skips = append(t.Skips, Skip{Line: line, Name: name, Reason: why})
	t.Skipped = len(t.Skips)
}

// NodeSet is a group of identical hosts.
type NodeSet struct {
	Hosts  int
	CPU    int64 // per host, hundredths of a core
	Memory int64 // per host, MB
}

// Site is the cluster a trace was made for.
type Site struct {
	Hosts    int       // all hosts, over every node-set
	CPU      int64     // per host when all node-sets agree, else 0
	Memory   int64     // per host when all node-sets agree, else 0
	NodeSets []NodeSet // as listed in the file
}

// Homogeneous reports whether every host of the site has the same
// capacity, so that CPU and Memory describe them all.
func (s *Site) Homogeneous() bool {
	for _, ns := range s.NodeSets {
		if ns.CPU != s.NodeSets[0].CPU || ns.Memory != s.NodeSets[0].Memory {
			return false
		}
	}
	return true
}

// newSite sums node-sets into a Site.
func newSite(sets []NodeSet) *Site {
	s := &Site{NodeSets: sets}
	for _, ns := range sets {
		s.Hosts += ns.Hosts
	}
	if len(sets) > 0 && s.Homogeneous() {
		s.CPU, s.Memory = sets[0].CPU, sets[0].Memory
	}
	return s
}

// ReadFile reads the workload at path, choosing the reader by extension:
// .swf (ReadSWF); .lwf and .xml (ReadLWFXML when the first non-blank
// character is '<', else ReadLWFLines); .json (ReadJSON); .yaml and .yml
// (ReadYAML). The requests are sorted by arrival, keeping file order among
// equal arrivals. It returns ErrUnknownFormat for another extension, the
// *os.PathError of a file it cannot open, and the reader's *ParseError.
func ReadFile(path string, opt Options) (*Trace, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".swf", ".lwf", ".xml", ".json", ".yaml", ".yml":
	default:
		return nil, fmt.Errorf("%s: %w %q (want .swf, .lwf, .xml, .json, .yaml or .yml)", path, ErrUnknownFormat, ext)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var t *Trace
	switch ext {
	case ".swf":
		t, err = ReadSWF(r, path, opt)
	case ".lwf", ".xml":
		if startsWithAngle(r) {
			t, err = ReadLWFXML(r, path, opt)
		} else {
			t, err = ReadLWFLines(r, path, opt)
		}
	case ".json":
		t, err = ReadJSON(r, path, opt)
	default:
		t, err = ReadYAML(r, path, opt)
	}
	if err != nil {
		return nil, err
	}
	SortByArrival(t.Requests)
	return t, nil
}

// SortByArrival sorts requests by arrival time, stably.
func SortByArrival(reqs []scheduler.Request) {
	slices.SortStableFunc(reqs, func(a, b scheduler.Request) int { return cmp.Compare(a.Arrival, b.Arrival) })
}

// startsWithAngle peeks past leading blanks (and a UTF-8 byte-order mark)
// for a '<'.
func startsWithAngle(r *bufio.Reader) bool {
	for n := 64; ; n *= 2 {
		b, err := r.Peek(n)
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 {
			return t[0] == '<'
		}
		if err != nil || n >= r.Size() {
			return false
		}
	}
}

// readLines calls fn with each line of r and its 1-based number, stopping
// at fn's first error. Lines may be as long as 1 MB.
func readLines(r io.Reader, name string, fn func(line int, text string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		if err := fn(n, sc.Text()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return &ParseError{File: name, Line: n + 1, Msg: err.Error(), Err: ErrSyntax, Cause: err}
	}
	return nil
}
