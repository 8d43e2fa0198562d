package api

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// healthTimeout bounds how long /healthz waits for the scheduling loop.
const healthTimeout = 5 * time.Second

// schedule is GET /v1/schedule?from=&to=. Each bound is an RFC 3339 time,
// "now", or a signed duration from the daemon's now ("-1h", "+24h", "+2d");
// an empty bound is passed as the zero time and the Service picks its
// default (from = now-1h, to = now+24h). A bound outside the times the
// scheduler holds is clamped to them, and the answer says so (Clamped).
func (s *Server) schedule(w http.ResponseWriter, r *http.Request) {
	q, err := queryParams(r, "from", "to")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	from, err := parseWhen("from", q["from"], s.cfg.Now)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	to, err := parseWhen("to", q["to"], s.cfg.Now)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	from, to, clamped, err := clampWindow(q["from"] != "", q["to"] != "", from, to)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !from.IsZero() && !to.IsZero() && !to.After(from) {
		s.writeError(w, r, badRequest("to", "to: %s is not after from (%s)", to.Format(time.RFC3339), from.Format(time.RFC3339)))
		return
	}
	sc, err := s.svc.Schedule(r.Context(), callerOf(r), from, to)
	if err == nil {
		sc.Clamped = clamped
	}
	s.answer(w, r, http.StatusOK, sc, err)
}

// clampWindow brings a schedule window's given bounds within EarliestTime
// and LatestTime, saying what it changed; a to before EarliestTime is a
// 400. fromGiven and toGiven tell a bound given as 0001-01-01 (the zero
// time too) from none (the zero time: the Service's default).
func clampWindow(fromGiven, toGiven bool, from, to time.Time) (time.Time, time.Time, *Clamped, error) {
	var c *Clamped
	var why []string
	if fromGiven && from.Before(EarliestTime) {
		why = append(why, fmt.Sprintf("from %s is before the scheduler's epoch %s: nothing is planned before it",
			from.Format(time.RFC3339), EarliestTime.Format(time.RFC3339)))
		from = EarliestTime
		c = &Clamped{From: &from}
	}
	if toGiven && to.Before(EarliestTime) {
		return from, to, nil, badRequest("to", "to: %s is before the scheduler's epoch %s", to.Format(time.RFC3339), EarliestTime.Format(time.RFC3339))
	}
	if to.After(LatestTime) {
		why = append(why, fmt.Sprintf("to %s is after %s, the last time the scheduler holds",
			to.Format(time.RFC3339), LatestTime.Format(time.RFC3339)))
		to = LatestTime
		if c == nil {
			c = &Clamped{}
		}
		c.To = &to
	}
	if c != nil {
		c.Reason = strings.Join(why, "; ")
	}
	return from, to, c, nil
}

// parseWhen reads a schedule bound (see schedule).
func parseWhen(field, v string, now func() time.Time) (time.Time, error) {
	switch {
	case v == "":
		return time.Time{}, nil
	case v == "now":
		return now(), nil
	case strings.HasPrefix(v, "+") || strings.HasPrefix(v, "-"):
		d, err := parseOffset(v)
		if err != nil {
			return time.Time{}, badRequest(field, "%s: %q is not a duration such as -1h, +30m or +2d", field, v)
		}
		return now().Add(d), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, badRequest(field, "%s: %q is not an RFC 3339 time (2006-01-02T15:04:05Z07:00), \"now\" or a duration such as -1h", field, v)
	}
	return t, nil
}

// maxOffsetDays bounds a "+Nd" offset (and keeps it in a Duration).
const maxOffsetDays = 36500

// parseOffset reads a signed Go duration, or a number of days ("+2d").
func parseOffset(v string) (time.Duration, error) {
	n, days := strings.CutSuffix(v, "d")
	if !days {
		return time.ParseDuration(v)
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || !(math.Abs(f) <= maxOffsetDays) {
		return 0, fmt.Errorf("bad number of days %q", n)
	}
	return time.Duration(f * float64(24*time.Hour)), nil
}

// stats is GET /v1/stats.
func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	if _, err := queryParams(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	st, err := s.svc.Stats(r.Context(), callerOf(r))
	s.answer(w, r, http.StatusOK, st, err)
}

// health is GET /healthz, the one route without authentication: 200
// {"status":"ok"} when the scheduling loop answers, else 503 (the reason
// goes to the log, not to the unauthenticated caller).
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	if err := s.svc.Health(ctx); err != nil {
		s.log.WithError(err).Warn("health check failed")
		writeJSON(w, http.StatusServiceUnavailable, Error{Error: "unhealthy: the scheduling loop does not answer (see the daemon's log)"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
