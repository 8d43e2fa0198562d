package report

// Report is what one simulation run produced. Times are seconds from the
// simulation start.
type Report struct {
	Name    string            `json:"name"`    // e.g. the preemption policy of this run in a sweep
	Trace   string            `json:"trace"`   // the trace file(s)
	Hosts   int               `json:"hosts"`   // hosts simulated
	Cluster Cluster           `json:"cluster"` // the simulated hosts and where they came from
	Options map[string]string `json:"options"` // the settings that made this run (key=value)
	Metrics Metrics           `json:"metrics"`
	Leases  []Lease           `json:"leases"`
	// Gantt holds every reservation that was enacted (what ran where).
	Gantt []Interval `json:"-"`
	// Utilisation samples the share of CPU in use over time.
	Utilisation []Sample `json:"-"`
	// Power samples the power drawn and the hosts on over time (runs that
	// model energy); Energy says what the energy controller did.
	Power  []PowerSample `json:"-"`
	Energy *EnergyStats  `json:"energy,omitempty"`
	// Gateway and Clusters are a federation run's (bora simulate
	// --federation): what the gateway did, and each cluster's figures;
	// Metrics are then the federation's overall. Nil otherwise.
	Gateway  *Gateway        `json:"gateway,omitempty"`
	Clusters []ClusterReport `json:"clusters,omitempty"`
}

// Gateway is what a federation's gateway did with the external leases:
// its policy, the leases it received, and those it rejected itself (no
// cluster to send it to, or every cluster in its order refused it), by
// reason.
type Gateway struct {
	Policy     string         `json:"policy"`
	External   int            `json:"external"`
	Rejected   int            `json:"rejected"`
	Rejections map[string]int `json:"rejections"`
}

// ClusterReport is one cluster of a federation run: its hosts, the
// metrics of its own leases (docs/models.md §7), the external leases the
// gateway tried on it, those it placed there, and those the cluster's
// admission stage refused (sent on to the next cluster in the order).
type ClusterReport struct {
	Name     string  `json:"name"`
	Cluster  Cluster `json:"cluster"`
	Metrics  Metrics `json:"metrics"`
	Tried    int     `json:"external_tried"`
	Placed   int     `json:"external_placed"`
	Refused  int     `json:"external_refused"`
	Rejected int     `json:"rejected"` // leases the cluster's scheduler rejected, local and external
}

// Cluster is the simulated cluster of a run: Hosts hosts of CPU cores and
// Memory MB each, and the source of that shape: "site" (the trace's LWF
// <site>), "flags" (--hosts, --host-cpu, --host-memory or --set
// cluster.*), "site+flags" (flags overriding part of a site), "config"
// (the config file's cluster section) or "default" (144 hosts of 1 core
// and 1024 MB).
type Cluster struct {
	Hosts  int     `json:"hosts"`
	CPU    float64 `json:"cpu"`    // cores per host
	Memory int64   `json:"memory"` // MB per host
	Source string  `json:"source,omitempty"`
}

// PowerSample is the cluster's power from T until the next sample: the
// watts drawn, the hosts on (booting and shutting-down hosts not counted)
// and the energy used from the start to T.
type PowerSample struct {
	T       float64 `json:"t"`
	Watts   float64 `json:"watts"`
	HostsOn int     `json:"hosts_on"`
	KWh     float64 `json:"kwh"`
}

// EnergyStats counts the energy controller's decisions and power
// operations in a run.
type EnergyStats struct {
	Policy       string `json:"policy"`
	Decisions    int    `json:"decisions"`
	SwitchedOn   int    `json:"switched_on"`
	Guarded      int    `json:"switched_on_for_local"` // of SwitchedOn: for local leases the policy left short
	Drained      int    `json:"switched_on_at_end"`    // of SwitchedOn: for the queue once the trace is over
	SwitchedOff  int    `json:"switched_off"`
	Consolidated int    `json:"consolidated"` // hosts emptied to be switched off
	// OffAhead is of SwitchedOff: hosts switched off with a reservation
	// ahead, their boot planned for it (energy.switch_off_ahead).
	OffAhead int `json:"switched_off_ahead,omitempty"`
	// ForRestart is not in SwitchedOn: hosts the scheduler switched on
	// itself so that a preempted deadline lease restarts by its deadline
	// (docs/models.md §5).
	ForRestart  int        `json:"switched_on_for_restart,omitempty"`
	MeanHostsOn float64    `json:"mean_hosts_on"`             // time-weighted, over the makespan
	ThresholdS  float64    `json:"wait_threshold_s"`          // alpha * mean external duration
	Idle        *IdleHours `json:"idle_host_hours,omitempty"` // time hosts were on running nothing
}

// IdleHours is the host time on with nothing running, in hours, by what
// ended it (sim/energy_idle.go).
type IdleHours struct {
	AfterBootH float64 `json:"after_boot"` // from coming on to the first thing run
	BetweenH   float64 `json:"between"`    // between two things run
	// BetweenLongH is the part of BetweenH in gaps longer than the grace
	// period and a tick: the host was kept on through them.
	BetweenLongH float64 `json:"between_long"`
	// BetweenHeldH is the part of BetweenLongH before a lease submitted
	// before the gap began: the host was held for it, planned ahead.
	BetweenHeldH float64 `json:"between_held"`
	// BetweenHeldLocalH is the part of BetweenHeldH held for local leases.
	BetweenHeldLocalH float64 `json:"between_held_local"`
	BeforeOffH        float64 `json:"before_off"` // from the last thing run to the shutdown
}

// Lease is one lease's outcome.
type Lease struct {
	ID          uint64   `json:"id"`
	Name        string   `json:"name,omitempty"`
	Kind        string   `json:"kind"`
	Class       string   `json:"class"`
	Origin      string   `json:"origin"`
	VMs         int      `json:"vms"`
	State       string   `json:"state"`
	SubmitS     float64  `json:"submit_s"`
	StartS      *float64 `json:"start_s"` // null when it never started
	EndS        *float64 `json:"end_s"`   // null when it never ended
	Hosts       []int    `json:"hosts"`
	Preemptions int      `json:"preemptions"`
	OverheadS   float64  `json:"overhead_s"`
	Reason      string   `json:"reason,omitempty"`
	RequestedS  float64  `json:"requested_s"`
	RealS       float64  `json:"real_s"`
	// Cluster is where a federation run placed the lease ("" elsewhere,
	// and for a lease the gateway rejected).
	Cluster string `json:"cluster,omitempty"`
}

// OpCount counts preempted leases and VMs for one operation.
type OpCount struct {
	Leases int `json:"leases"`
	VMs    int `json:"vms"`
}

// Metrics are those of docs/models.md §7.
type Metrics struct {
	Leases                   int                `json:"leases"`
	Completed                int                `json:"completed"`
	LocalRejectionRate       float64            `json:"local_rejection_rate"`          // percent of local leases rejected
	ExternalRejectionRate    float64            `json:"external_rejection_rate"`       // percent of external leases rejected
	Utilisation              float64            `json:"utilisation"`                   // percent: sum v*d / (hosts*makespan)
	UtilisationOverheadAdj   float64            `json:"utilisation_overhead_adjusted"` // percent: (1 - overhead/computation)*100
	PreemptedLeases          int                `json:"preempted_leases"`
	PreemptedVMs             int                `json:"preempted_vms"`
	PreemptedByOp            map[string]OpCount `json:"preempted_by_operation"` // cancel, suspend, migrate, requeue
	PreemptionOverheadS      float64            `json:"preemption_overhead_s"`
	ARTS                     float64            `json:"art_s"`  // mean(completion - ready) over completed best-effort leases
	AWRTS                    float64            `json:"awrt_s"` // sum v*d*(c-b) / sum v*d
	MakespanS                float64            `json:"makespan_s"`
	MigrationRate            float64            `json:"migration_rate"` // percent of migratable leases migrated
	DeadlineMisses           int                `json:"deadline_misses"`
	ExternalCompletedPercent float64            `json:"external_completed_percent"`
	PreemptionSearch         map[string]int     `json:"preemption_search"`        // exact / heuristic: how many decisions used each
	EnergyKWh                *float64           `json:"energy_kwh,omitempty"`     // nil when the run did not model energy
	ViolationRate            *float64           `json:"violation_rate,omitempty"` // percent of the external leases that started waited longer than alpha * mean external duration (docs/models.md §5); nil when the run did not model energy
	// The admission metrics (docs/models.md §4), nil when the run did not
	// model admission: the violation rate VR = (a*v + r)/(a + r) × 100 of
	// the external leases, the percent of them the admission stage
	// rejected, the threshold D at the end of the run, and the external
	// rejections by reason (admission-limit, no-capacity...).
	AdmissionViolationRate *float64       `json:"admission_violation_rate,omitempty"`
	AdmissionRejectionRate *float64       `json:"admission_rejection_rate,omitempty"`
	AdmissionThresholdS    *float64       `json:"admission_threshold_s,omitempty"`
	ExternalRejections     map[string]int `json:"external_rejections,omitempty"`
	WallSeconds            float64        `json:"wall_s"` // how long the run took on this machine
}

// Interval is one reservation as it was enacted.
type Interval struct {
	Lease  uint64  `json:"lease"`
	Host   int     `json:"host"`
	Kind   string  `json:"kind"` // vm, suspend, resume, migrate, shutdown
	Origin string  `json:"origin"`
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
}

// Sample is the cluster's CPU utilisation (0..1) from T until the next sample.
type Sample struct {
	T    float64 `json:"t"`
	Util float64 `json:"util"`
}
