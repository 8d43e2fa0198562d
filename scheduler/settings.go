package scheduler

import (
	"fmt"
	"strconv"
	"time"

	"github.com/bora-sched/bora/overhead"
)

// ParseDuration reads a Go duration ("90s", "1h30m") or a number of seconds.
func ParseDuration(v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return overhead.Seconds(f), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (e.g. 90s, 1h30m, or seconds)", v)
	}
	return d, nil
}
