package opennebula

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The BORA_LEASE attribute: a vector attribute of a VM's template,
//
//	BORA_LEASE = [
//	  ID       = "analysis-7",   # VMs of one owner sharing an ID form one lease
//	  VMS      = "4",            # wait until this many VMs share the ID
//	  START    = "best-effort",  # best-effort | now | +HH:MM:SS | ISO 8601 time
//	  DURATION = "02:00:00",     # HH:MM:SS, seconds, or a Go duration (90m)
//	  DEADLINE = "+06:00:00",    # only with START = best-effort
//	  CLASS    = "suspendable",  # cancellable | suspendable | migratable | non-preemptable
//	  ORIGIN   = "local" ]       # local | external
//
// Every key is optional. A relative START or DEADLINE (+HH:MM:SS) counts
// from the VM's creation time (its STIME), so it means the same at every
// poll and after a restart. An ISO time without a zone is UTC. The
// single-value form BORA_LEASE = "ID=a, START=now" is read too.

// leaseKeys are the keys BORA_LEASE may have.
var leaseKeys = map[string]bool{"ID": true, "VMS": true, "START": true, "DURATION": true,
	"DEADLINE": true, "CLASS": true, "ORIGIN": true}

var classes = map[string]bool{"cancellable": true, "suspendable": true, "migratable": true, "non-preemptable": true}

// timeSpec is a START or DEADLINE value.
type timeSpec struct {
	kind string        // "", "best-effort", "now", "at", "rel"
	at   time.Time     // kind "at"
	rel  time.Duration // kind "rel": after the VM's creation
}

// resolve renders the spec as the API's lease request wants it, relative times
// anchored at created.
func (t timeSpec) resolve(created time.Time) string {
	switch t.kind {
	case "at":
		return t.at.UTC().Format(time.RFC3339)
	case "rel":
		return created.Add(t.rel).UTC().Format(time.RFC3339)
	}
	return t.kind
}

// leaseSpec is a parsed BORA_LEASE.
type leaseSpec struct {
	ID       string
	VMs      int // 0: no count given
	Start    timeSpec
	Duration time.Duration // 0: the default
	Deadline timeSpec
	Class    string
	Origin   string
}

// same reports whether two VMs' attributes ask for the same lease
// (relative times are compared as written).
func (a leaseSpec) same(b leaseSpec) bool { return a == b }

// parseLeaseText reads the single-value form "K=V, K=V" (optionally in
// brackets) into fields.
func parseLeaseText(s string) (map[string]string, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not KEY=VALUE", part)
		}
		k = strings.ToUpper(strings.TrimSpace(k))
		v = strings.Trim(strings.TrimSpace(v), `"`)
		if k == "" {
			return nil, fmt.Errorf("%q has no key", part)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%s given twice", k)
		}
		out[k] = v
	}
	return out, nil
}

// parseLeaseSpec checks and reads BORA_LEASE's fields (keys upper case).
// The error says which key is wrong and why.
func parseLeaseSpec(f map[string]string) (leaseSpec, error) {
	var sp leaseSpec
	var unknown []string
	for k := range f {
		if !leaseKeys[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return leaseSpec{}, fmt.Errorf("unknown key %s (known: CLASS, DEADLINE, DURATION, ID, ORIGIN, START, VMS)",
			strings.Join(unknown, ", "))
	}
	get := func(k string) string { return strings.TrimSpace(f[k]) }
	sp.ID = get("ID")
	if v := get("VMS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return leaseSpec{}, fmt.Errorf("VMS = %q: want a positive number of VMs", v)
		}
		sp.VMs = n
	}
	var err error
	if sp.Start, err = parseStart(get("START")); err != nil {
		return leaseSpec{}, err
	}
	if v := get("DURATION"); v != "" {
		if sp.Duration, err = parseDuration(v); err != nil {
			return leaseSpec{}, fmt.Errorf("DURATION = %q: %v", v, err)
		}
	}
	if v := get("DEADLINE"); v != "" {
		if sp.Deadline, err = parseTime(v); err != nil {
			return leaseSpec{}, fmt.Errorf("DEADLINE = %q: %v", v, err)
		}
		if sp.Start.kind != "best-effort" {
			return leaseSpec{}, fmt.Errorf("DEADLINE needs START = best-effort, got START = %q", get("START"))
		}
	}
	if v := strings.ToLower(get("CLASS")); v != "" {
		if !classes[v] {
			return leaseSpec{}, fmt.Errorf("CLASS = %q: want cancellable, suspendable, migratable or non-preemptable", v)
		}
		sp.Class = v
	}
	if v := strings.ToLower(get("ORIGIN")); v != "" {
		if v != "local" && v != "external" {
			return leaseSpec{}, fmt.Errorf("ORIGIN = %q: want local or external", v)
		}
		sp.Origin = v
	}
	return sp, nil
}

func parseStart(v string) (timeSpec, error) {
	switch strings.ToLower(v) {
	case "", "best-effort", "besteffort":
		return timeSpec{kind: "best-effort"}, nil
	case "now":
		return timeSpec{kind: "now"}, nil
	}
	t, err := parseTime(v)
	if err != nil {
		return timeSpec{}, fmt.Errorf("START = %q: want best-effort, now, +HH:MM:SS or an ISO 8601 time (%v)", v, err)
	}
	return t, nil
}

// timeLayouts are the ISO 8601 forms START and DEADLINE accept; the ones
// without a zone are UTC.
var timeLayouts = []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04"}

// parseTime reads +DURATION (after the VM's creation) or an ISO time.
func parseTime(v string) (timeSpec, error) {
	if rest, ok := strings.CutPrefix(v, "+"); ok {
		d, err := parseDuration(rest)
		if err != nil {
			return timeSpec{}, err
		}
		return timeSpec{kind: "rel", rel: d}, nil
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, v); err == nil {
			return timeSpec{kind: "at", at: t.UTC()}, nil
		}
	}
	return timeSpec{}, fmt.Errorf("not a time")
}

// maxDuration keeps durations far from overflowing time arithmetic
// (100 years).
const maxDuration = 100 * 365 * 24 * time.Hour

// parseDuration reads HH:MM:SS (hours may exceed 24), whole seconds, or a
// Go duration; it must be positive.
func parseDuration(v string) (time.Duration, error) {
	var d time.Duration
	switch {
	case strings.Count(v, ":") == 2:
		parts := strings.Split(v, ":")
		var n [3]int64
		for i, p := range parts {
			x, err := strconv.ParseInt(p, 10, 64)
			if err != nil || x < 0 || (i > 0 && x > 59) || (i == 0 && x > int64(maxDuration/time.Hour)) {
				return 0, fmt.Errorf("want HH:MM:SS")
			}
			n[i] = x
		}
		d = time.Duration(n[0])*time.Hour + time.Duration(n[1])*time.Minute + time.Duration(n[2])*time.Second
	default:
		if s, err := strconv.ParseInt(v, 10, 64); err == nil {
			if s < 0 || s > int64(maxDuration/time.Second) {
				return 0, fmt.Errorf("out of range")
			}
			d = time.Duration(s) * time.Second
			break
		}
		g, err := time.ParseDuration(v)
		if err != nil {
			return 0, fmt.Errorf("want HH:MM:SS, seconds or a duration like 90m")
		}
		d = g
	}
	if d <= 0 || d > maxDuration {
		return 0, fmt.Errorf("must be positive and under 100 years")
	}
	return d, nil
}

// formatDuration renders d as the API's lease request wants its duration.
func formatDuration(d time.Duration) string { return d.String() }
