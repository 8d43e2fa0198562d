package scheduler

// Logger receives what the scheduler has to report besides its
// decisions: an error it recovered from while planning a lease (a
// reservation the slot table refused; the lease is left as it was or
// queued again) and, for debugging, details such as why a lease was
// rejected. The scheduler itself does not log: the daemon adapts its
// logger to this interface (daemon/schedlog.go), the simulator writes the
// errors to standard error, and the property tests collect them. A nil
// Logger discards everything.
type Logger interface {
	// LeaseError reports err, met while doing what (a lowercase phrase,
	// such as "planning queued lease") for lease id.
	LeaseError(id LeaseID, what string, err error)
	// Debug reports msg with its fields (stable keys: lease_id, reason,
	// leases).
	Debug(msg string, fields map[string]any)
}

// discard is the Logger used when none is given.
type discard struct{}

func (discard) LeaseError(LeaseID, string, error) {}
func (discard) Debug(string, map[string]any)      {}
