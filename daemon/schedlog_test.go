package daemon

import (
	"bytes"
	"errors"
	"testing"

	"github.com/sirupsen/logrus"
)

// TestSchedLog: what the scheduler reports through its Logger reaches the
// daemon's log with the stable keys (component scheduler, lease_id, error).
func TestSchedLog(t *testing.T) {
	var buf bytes.Buffer
	l := logrus.New()
	l.SetOutput(&buf)
	l.SetLevel(logrus.DebugLevel)
	l.SetFormatter(&logrus.TextFormatter{DisableTimestamp: true})
	sl := newSchedLog(logrus.NewEntry(l))
	sl.LeaseError(7, "planning queued lease", errors.New("slottable: over capacity"))
	sl.Debug("too big", map[string]any{"lease_id": 8, "reason": "larger-than-cluster"})
	want := `level=error msg="planning queued lease" component=scheduler error="slottable: over capacity" lease_id=7
level=debug msg="too big" component=scheduler lease_id=8 reason=larger-than-cluster
`
	if got := buf.String(); got != want {
		t.Fatalf("logged\n%s\nwant\n%s", got, want)
	}
}
