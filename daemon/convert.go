package daemon

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/fielderr"
	"github.com/bora-sched/bora/scheduler"
)

// maxLeaseDuration bounds durations and times a request may name.
const maxLeaseDuration = 10 * 365 * 24 * time.Hour

func fieldErr(field, format string, args ...any) error {
	return fielderr.New(field, format, args...)
}

// parseDuration reads a Go duration ("90m") or HH:MM:SS, in whole seconds
// (checkResolution).
func parseDuration(field, v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if parts := strings.Split(v, ":"); len(parts) == 3 {
		var n [3]int
		for i, p := range parts {
			x, err := strconv.Atoi(p)
			if err != nil || x < 0 || (i > 0 && x > 59) {
				return 0, fieldErr(field, "%q is not HH:MM:SS", v)
			}
			n[i] = x
		}
		if n[0] > int(maxLeaseDuration/time.Hour) {
			return 0, fieldErr(field, "%q is longer than ten years", v)
		}
		return time.Duration(n[0])*time.Hour + time.Duration(n[1])*time.Minute + time.Duration(n[2])*time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fieldErr(field, "%q is not a duration (e.g. 90m, 2h, 01:30:00)", v)
	}
	if d > maxLeaseDuration {
		return 0, fieldErr(field, "%q is longer than ten years", v)
	}
	return d, checkResolution(field, v, d)
}

// parseTime reads an RFC 3339 time or "+DURATION" from now.
func parseTime(field, v string, now time.Time) (time.Time, error) {
	if rest, ok := strings.CutPrefix(v, "+"); ok {
		d, err := parseDuration(field, rest)
		if err != nil {
			return time.Time{}, err
		}
		return now.Add(d), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fieldErr(field, "%q is not a time (RFC 3339, e.g. 2026-11-23T14:00:00Z, or +DURATION from now)", v)
	}
	if t.Before(Epoch) || t.Sub(now) > maxLeaseDuration {
		return time.Time{}, fieldErr(field, "%q is out of range", v)
	}
	return t, nil
}

// toRequest turns an API request into a scheduler request at now.
func toRequest(r api.LeaseRequest, now time.Time, c api.Caller) (scheduler.Request, error) {
	req := scheduler.Request{Name: r.Name, User: c.User, Arrival: now.Sub(Epoch), VMs: r.VMs, Image: r.Image,
		Class: scheduler.Suspendable, Origin: scheduler.Local, Kind: scheduler.BestEffort}
	if err := checkTexts(r); err != nil {
		return req, err
	}
	if r.VMs < 1 || r.VMs > 100000 {
		return req, fieldErr("vms", "must be between 1 and 100000, got %d", r.VMs)
	}
	cpu := r.CPU
	if cpu == 0 {
		cpu = 1
	}
	if !(cpu > 0) || cpu > 4096 || math.IsNaN(cpu) {
		return req, fieldErr("cpu", "must be a positive number of cores, got %v", r.CPU)
	}
	req.CPU = int64(math.Round(cpu * 100))
	if req.CPU < 1 {
		return req, fieldErr("cpu", "must be at least 0.01 cores, got %v", r.CPU)
	}
	req.Memory = r.Memory
	if req.Memory == 0 {
		req.Memory = 1024
	}
	if req.Memory < 1 || req.Memory > 1<<30 {
		return req, fieldErr("memory", "must be a positive number of MB, got %d", r.Memory)
	}
	if r.Duration == "" {
		return req, fieldErr("duration", "is required (e.g. 2h or 02:00:00)")
	}
	d, err := parseDuration("duration", r.Duration)
	if err != nil {
		return req, err
	}
	if d <= 0 {
		return req, fieldErr("duration", "must be positive, got %s", r.Duration)
	}
	req.Duration = d
	if err := startOf(&req, r, now); err != nil {
		return req, err
	}
	if err := classOf(&req, r, c); err != nil {
		return req, err
	}
	if r.RealDuration != "" {
		if req.Real, err = parseDuration("real_duration", r.RealDuration); err != nil {
			return req, err
		}
		if req.Real <= 0 {
			return req, fieldErr("real_duration", "must be positive, got %s", r.RealDuration)
		}
	}
	if err := req.ValidateAt(Epoch); err != nil {
		var fe *fielderr.Error
		if errors.As(err, &fe) {
			return req, fieldErr(fe.Path, "%s", fe.Msg)
		}
		return req, fieldErr("request", "%v", err)
	}
	return req, nil
}

func startOf(req *scheduler.Request, r api.LeaseRequest, now time.Time) error {
	switch r.Start {
	case "", "best-effort":
	case "now":
		req.Kind = scheduler.Immediate
	default:
		t, err := parseTime("start", r.Start, now)
		if err != nil {
			return err
		}
		req.Kind, req.Start = scheduler.AdvanceReservation, t.Sub(Epoch)
	}
	if r.NotBefore != "" {
		if req.Kind != scheduler.BestEffort {
			return fieldErr("not_before", "only for best-effort and deadline leases (start: best-effort)")
		}
		t, err := parseTime("not_before", r.NotBefore, now)
		if err != nil {
			return err
		}
		req.Start = max(t.Sub(Epoch), req.Arrival)
	}
	if r.Deadline != "" {
		if req.Kind != scheduler.BestEffort {
			return fieldErr("deadline", "only for best-effort leases (start: best-effort)")
		}
		t, err := parseTime("deadline", r.Deadline, now)
		if err != nil {
			return err
		}
		req.Kind, req.Deadline = scheduler.Deadline, t.Sub(Epoch)
	}
	return nil
}

func classOf(req *scheduler.Request, r api.LeaseRequest, c api.Caller) error {
	switch scheduler.Class(r.Class) {
	case "":
	case scheduler.Cancellable, scheduler.Suspendable, scheduler.Migratable, scheduler.NonPreemptable:
		req.Class = scheduler.Class(r.Class)
	default:
		return fieldErr("class", "%q: must be cancellable, suspendable, migratable or non-preemptable", r.Class)
	}
	switch scheduler.Origin(r.Origin) {
	case "", scheduler.Local:
		// The cluster's own users' leases are never preempted.
		if r.Class != "" && req.Class != scheduler.NonPreemptable {
			return fieldErr("class", "local leases are non-preemptable; %q is for external leases", r.Class)
		}
		req.Class = scheduler.NonPreemptable
	case scheduler.External:
		if !c.External && !c.Admin {
			return fmt.Errorf("external leases come from a gateway's token: %w", api.ErrForbidden)
		}
		req.Origin = scheduler.External
	default:
		return fieldErr("origin", "%q: must be local or external", r.Origin)
	}
	return nil
}

// view is what the API shows of a lease (in the loop).
func (d *Daemon) view(l *scheduler.Lease, full bool) api.Lease {
	v := api.Lease{ID: l.ID, Name: l.Req.Name, User: l.Req.User, Kind: string(l.Req.Kind), Class: string(l.Req.Class),
		Origin: string(l.Req.Origin), State: string(l.State), VMs: l.Req.VMs, CPU: float64(l.Req.CPU) / 100,
		Memory: l.Req.Memory, Image: l.Req.Image, Submitted: l.Submitted, DurationS: l.Req.Duration.Seconds(),
		RemainingS: l.Remaining.Seconds(), Reason: string(l.Reason), Detail: l.Detail, Preemptions: l.Preemptions,
		Migrations: l.Migrations, OverheadS: l.Overhead.Seconds(), DeadlineMissed: l.DeadlineMissed}
	if !l.FirstStart.IsZero() {
		v.Start = ptr(l.FirstStart)
	} else if s := l.PlannedStart(); !s.IsZero() {
		v.Start = ptr(s)
	}
	if !l.End.IsZero() {
		v.End = ptr(l.End)
	}
	if !l.Deadline.IsZero() {
		v.Deadline = ptr(l.Deadline)
	}
	for _, h := range l.Hosts {
		v.Hosts = append(v.Hosts, d.hosts[h].Name)
	}
	if !full {
		return v
	}
	for _, e := range l.History {
		v.History = append(v.History, api.Event{At: e.At, State: string(e.State), Reason: string(e.Reason), Detail: e.Detail})
	}
	for _, p := range l.Plan() {
		ph := api.Phase{Kind: p.Kind, Start: p.Start, End: p.End}
		for _, h := range p.Hosts {
			ph.Hosts = append(ph.Hosts, d.hosts[h].Name)
		}
		v.Plan = append(v.Plan, ph)
	}
	// A lease that never started has no VMs: no names to show (a
	// rejected lease of 20 VMs listed 20 of them).
	if v.DriverIDs = d.driverIDs(l.ID); len(v.DriverIDs) == 0 && l.Started() {
		for i := 0; i < l.Req.VMs; i++ {
			v.DriverIDs = append(v.DriverIDs, drivers.VM{Lease: l.ID, Index: i}.Name())
		}
	}
	v.EnactmentErrors = append(v.EnactmentErrors, d.errs[l.ID]...)
	return v
}

func ptr(t time.Time) *time.Time { return &t }
