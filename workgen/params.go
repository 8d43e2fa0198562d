package workgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Reading a model's parameters. Each reader checks the value's range and
// returns an error naming the parameter and wrapping ErrBadParam.

func (v values) float(name string, lo, hi float64) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v[name]), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s=%q: not a number: %w", name, v[name], ErrBadParam)
	}
	if f < lo || f > hi {
		return 0, fmt.Errorf("%s=%q: out of range [%g, %g]: %w", name, v[name], lo, hi, ErrBadParam)
	}
	return f, nil
}

func (v values) int(name string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v[name]))
	if err != nil {
		return 0, fmt.Errorf("%s=%q: not a whole number: %w", name, v[name], ErrBadParam)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%s=%q: out of range [%d, %d]: %w", name, v[name], lo, hi, ErrBadParam)
	}
	return n, nil
}

func (v values) duration(name string, lo, hi time.Duration) (time.Duration, error) {
	d, err := parseLength(v[name])
	if err != nil {
		return 0, fmt.Errorf("%s=%q: %v: %w", name, v[name], err, ErrBadParam)
	}
	if d < lo || d > hi {
		return 0, fmt.Errorf("%s=%q: out of range [%s, %s]: %w", name, v[name], lo, hi, ErrBadParam)
	}
	return d, nil
}

func (v values) choice(name string, allowed ...string) (string, error) {
	s := strings.TrimSpace(v[name])
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", fmt.Errorf("%s=%q: want one of %s: %w", name, v[name], strings.Join(allowed, ", "), ErrBadParam)
}

// parseLength reads a Go duration ("2h30m") or a number of seconds.
func parseLength(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && math.Abs(f) < 1e9 {
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("not a duration (want seconds or a Go duration such as 2h30m)")
	}
	return d, nil
}

// delay is a distribution of a non-negative length of time, written
//
//	0 or a length ("24h")    always that length
//	exp(MEAN)                exponential with that mean
//	uniform(LO,HI)           uniform in [LO, HI]
//
// It is how the notice of local leases is given.
type delay struct {
	kind   string // "fixed", "exp", "uniform"
	lo, hi time.Duration
}

// parseDelay reads a delay (see delay).
func parseDelay(s string) (delay, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	inner := func(prefix string) (string, bool) {
		if strings.HasPrefix(s, prefix+"(") && strings.HasSuffix(s, ")") {
			return s[len(prefix)+1 : len(s)-1], true
		}
		return "", false
	}
	bad := fmt.Errorf("want a length (24h, 0), exp(MEAN) or uniform(LO,HI)")
	if a, ok := inner("exp"); ok {
		m, err := parseLength(a)
		if err != nil || m <= 0 {
			return delay{}, bad
		}
		return delay{kind: "exp", lo: m}, nil
	}
	if a, ok := inner("uniform"); ok {
		parts := strings.Split(a, ",")
		if len(parts) != 2 {
			return delay{}, bad
		}
		lo, err1 := parseLength(parts[0])
		hi, err2 := parseLength(parts[1])
		if err1 != nil || err2 != nil || lo < 0 || hi < lo {
			return delay{}, bad
		}
		return delay{kind: "uniform", lo: lo, hi: hi}, nil
	}
	d, err := parseLength(s)
	if err != nil || d < 0 {
		return delay{}, bad
	}
	return delay{kind: "fixed", lo: d}, nil
}

func (v values) delay(name string) (delay, error) {
	d, err := parseDelay(v[name])
	if err != nil {
		return d, fmt.Errorf("%s=%q: %v: %w", name, v[name], err, ErrBadParam)
	}
	return d, nil
}

// zero reports whether the delay is always 0.
func (d delay) zero() bool { return d.kind == "fixed" && d.lo == 0 }

// draw draws one delay, rounded to the second. A fixed delay draws
// nothing from r.
func (d delay) draw(r *rand.Rand) time.Duration {
	switch d.kind {
	case "exp":
		return seconds(r.ExpFloat64() * d.lo.Seconds())
	case "uniform":
		return seconds(uniform(r, d.lo.Seconds(), d.hi.Seconds()))
	}
	return d.lo
}

// seconds turns a number of seconds into a duration rounded to the
// second: generated files carry whole seconds.
func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s)) * time.Second
}

// Parameters that several models share.
var (
	localNotice = Param{"local_notice", "0",
		"notice of local leases: 0 = immediate, else an advance reservation that far ahead: a length (24h), exp(MEAN) or uniform(LO,HI)"}
	deadlineRatioMin = Param{"deadline_ratio_min", "2",
		"deadline = arrival + duration x ratio, ratio uniform in [min, max] (migratable, non-preemptable)"}
	deadlineRatioMax = Param{"deadline_ratio_max", "4", "see deadline_ratio_min"}
)
