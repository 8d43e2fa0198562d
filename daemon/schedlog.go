package daemon

import (
	"github.com/bora-sched/bora/scheduler"
	"github.com/sirupsen/logrus"
)

// schedLog logs what the scheduler reports (scheduler.Logger) with the
// daemon's logger, under component scheduler: the scheduling core does
// not import logrus.
type schedLog struct{ e *logrus.Entry }

// newSchedLog returns the scheduler.Logger the daemon gives the scheduler.
func newSchedLog(e *logrus.Entry) scheduler.Logger {
	return schedLog{e.WithField("component", "scheduler")}
}

func (l schedLog) LeaseError(id scheduler.LeaseID, what string, err error) {
	l.e.WithError(err).WithField("lease_id", id).Error(what)
}

func (l schedLog) Debug(msg string, fields map[string]any) {
	l.e.WithFields(logrus.Fields(fields)).Debug(msg)
}
