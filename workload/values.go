package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Sanity limits: values beyond them are rejected as out of range, so that
// sums of times and products of capacities never overflow downstream.
const (
	maxSeconds = 100 * 365.25 * 24 * 3600 // 100 years
	maxVMs     = 1 << 20
	maxCores   = 1 << 20
	maxMemory  = 1 << 40 // MB
)

// valueError is a message about one value; the caller adds the position.
type valueError string

func (e valueError) Error() string { return string(e) }

func valuef(format string, args ...any) error { return valueError(fmt.Sprintf(format, args...)) }

// isDecimal reports whether s looks like a plain decimal number, so that
// strconv's hexadecimal floats, "Inf" and "NaN" are not taken for numbers.
func isDecimal(s string) bool {
	if s == "" {
		return false
	}
	digits := false
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E':
		default:
			return false
		}
	}
	return digits
}

// parseNumber reads a finite decimal number.
func parseNumber(s string) (float64, error) {
	if !isDecimal(s) {
		return 0, valuef("%q is not a number", s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, valuef("%q is not a number", s)
	}
	return f, nil
}

// parseWhole reads a whole number ("64", also "64.0") within [lo, hi].
func parseWhole(s string, lo, hi int64) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return inRange(s, n, lo, hi)
	}
	f, err := parseNumber(s)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) {
		return 0, valuef("%q is not a whole number", s)
	}
	if f < float64(lo) || f > float64(hi) {
		return 0, valuef("%s is out of range [%d, %d]", s, lo, hi)
	}
	return int64(f), nil
}

func inRange(s string, n, lo, hi int64) (int64, error) {
	if n < lo || n > hi {
		return 0, valuef("%s is out of range [%d, %d]", s, lo, hi)
	}
	return n, nil
}

// seconds turns a number of seconds into a duration, rejecting values
// beyond maxSeconds either way.
func seconds(f float64) (time.Duration, error) {
	if math.IsNaN(f) || math.Abs(f) > maxSeconds {
		return 0, valuef("%g s is out of range (more than 100 years)", f)
	}
	return time.Duration(math.Round(f * float64(time.Second))), nil
}

// parseSeconds reads a number of seconds ("3600", "1.5", "-1").
func parseSeconds(s string) (time.Duration, error) {
	f, err := parseNumber(s)
	if err != nil {
		return 0, err
	}
	return seconds(f)
}

// parseClock reads "[+][DD:]HH:MM:SS[.ff]". Minutes and seconds must be
// below 60; hours may exceed 23 when there is no day field.
func parseClock(s string) (time.Duration, error) {
	bad := valuef("%q is not a time of the form [DD:]HH:MM:SS", s)
	parts := strings.Split(strings.TrimPrefix(s, "+"), ":")
	if len(parts) != 3 && len(parts) != 4 {
		return 0, bad
	}
	secs, err := parseNumber(parts[len(parts)-1])
	if err != nil || secs < 0 || secs >= 60 || strings.ContainsAny(parts[len(parts)-1], "eE+-") {
		return 0, bad
	}
	total := secs
	unit := []float64{60, 3600, 86400}
	for i := len(parts) - 2; i >= 0; i-- {
		k := len(parts) - 2 - i
		n, err := strconv.ParseUint(parts[i], 10, 32)
		if err != nil || (k == 0 && n >= 60) || (k == 1 && len(parts) == 4 && n >= 24) {
			return 0, bad
		}
		total += float64(n) * unit[k]
	}
	return seconds(total)
}

// dateTimeLayouts are the absolute date-time forms, tried in order.
var dateTimeLayouts = []string{"2006-01-02 15:04:05", time.RFC3339Nano}

// looksAbsolute reports whether s starts like a date, "YYYY-MM-DD".
func looksAbsolute(s string) bool {
	return len(s) >= 10 && s[4] == '-' && s[7] == '-'
}

// parseDateTime reads an absolute date-time and returns its offset from
// epoch, which must not be negative.
func parseDateTime(s string, epoch time.Time) (time.Duration, error) {
	for _, layout := range dateTimeLayouts {
		t, err := time.ParseInLocation(layout, s, time.UTC)
		if err != nil {
			continue
		}
		if t.Before(epoch) {
			return 0, valuef("%q is before the epoch %s", s, epoch.Format(time.RFC3339))
		}
		if t.Sub(epoch) > time.Duration(maxSeconds*float64(time.Second)) || t.Year() > epoch.Year()+101 {
			return 0, valuef("%q is out of range (more than 100 years after the epoch)", s)
		}
		return t.Sub(epoch), nil
	}
	return 0, valuef("%q is not a date-time of the form YYYY-MM-DD HH:MM:SS", s)
}

// parseTime reads a point in time in the forms every format shares:
// seconds, a clock offset, or an absolute date-time.
func parseTime(s string, epoch time.Time, allowGo bool) (time.Duration, error) {
	s = strings.TrimSpace(s)
	switch {
	case looksAbsolute(s):
		return parseDateTime(s, epoch)
	case strings.Contains(s, ":"):
		return parseClock(s)
	case isDecimal(s):
		return parseSeconds(s)
	case allowGo:
		if d, err := parseGoDuration(s); err == nil {
			return d, nil
		}
		return 0, valuef("%q is not a time (want seconds, HH:MM:SS, a Go duration such as 2h30m or YYYY-MM-DD HH:MM:SS)", s)
	}
	return 0, valuef("%q is not a time (want seconds, [DD:]HH:MM:SS or YYYY-MM-DD HH:MM:SS)", s)
}

// parseDuration reads a length of time: seconds, "[DD:]HH:MM:SS" or, when
// allowGo, a Go duration such as "2h30m".
func parseDuration(s string, allowGo bool) (time.Duration, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.Contains(s, ":"):
		return parseClock(s)
	case isDecimal(s):
		return parseSeconds(s)
	case allowGo:
		return parseGoDuration(s)
	}
	return 0, valuef("%q is not a duration", s)
}

func parseGoDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, valuef("%q is not a duration (want seconds, HH:MM:SS or a Go duration such as 2h30m)", s)
	}
	if d.Seconds() > maxSeconds || d.Seconds() < -maxSeconds {
		return 0, valuef("%q is out of range (more than 100 years)", s)
	}
	return d, nil
}

// cores turns a number of cores into hundredths of a core.
func cores(f float64) (int64, error) {
	if math.IsNaN(f) || f < 0 || f > maxCores {
		return 0, valuef("%g cores is out of range [0, %d]", f, maxCores)
	}
	return int64(math.Round(f * 100)), nil
}
