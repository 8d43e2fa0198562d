package daemon

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/slottable"
)

// metrics are the daemon's Prometheus collectors.
type metrics struct {
	leases        *prometheus.GaugeVec
	queue         prometheus.Gauge
	preemptions   prometheus.Gauge
	preemptVMs    prometheus.Gauge
	overhead      prometheus.Gauge
	hosts         *prometheus.GaugeVec
	unknown       prometheus.Gauge
	utilisation   prometheus.Gauge
	decision      prometheus.Histogram
	ops           *prometheus.CounterVec
	energy        prometheus.Gauge // kWh drawn by the hosts (energy.go)
	violations    prometheus.Gauge
	powerFailures *prometheus.CounterVec
	bootsLate     prometheus.Counter
	opsLate       prometheus.Counter // oplate.go
	breaches      prometheus.Counter // capacity.go
	passPanics    prometheus.Counter // recover.go
	// The admission stage (admission.go; set only with a policy, but for
	// the rejections, counted whatever refused the lease).
	rejections   *prometheus.CounterVec
	admLimit     prometheus.Gauge
	admAdmitted  prometheus.Gauge
	admThreshold prometheus.Gauge
	admInputs    *prometheus.GaugeVec
	admVR        prometheus.Gauge
	admCompleted prometheus.Gauge
}

// newMetrics makes the collectors, each registered with reg as it is
// made (promauto), so none can be left out.
func newMetrics(reg *prometheus.Registry) *metrics {
	f := promauto.With(reg)
	gauge := func(name, help string) prometheus.Gauge {
		return f.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	}
	counter := func(name, help string) prometheus.Counter {
		return f.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	}
	return &metrics{
		leases: f.NewGaugeVec(prometheus.GaugeOpts{Name: "bora_leases",
			Help: "Leases by state."}, []string{"state"}),
		queue: gauge("bora_queue_length",
			"Best-effort leases waiting in the queue."),
		preemptions: gauge("bora_preempted_leases",
			"Times leases were preempted, over all leases."),
		preemptVMs: gauge("bora_preempted_vms",
			"VMs preempted, over all preemptions."),
		overhead: gauge("bora_preemption_overhead_seconds",
			"Total preemption overhead charged to leases (docs/models.md §2)."),
		hosts: f.NewGaugeVec(prometheus.GaugeOpts{Name: "bora_hosts",
			Help: "Hosts by power state."}, []string{"power"}),
		unknown: gauge("bora_unknown_vms",
			"VMs named like bora's that bora does not know (reported, never killed)."),
		utilisation: gauge("bora_cpu_reserved_ratio",
			"CPU reserved now over the capacity of enabled hosts."),
		decision: f.NewHistogram(prometheus.HistogramOpts{Name: "bora_decision_seconds",
			Help:    "Time of one pass of the scheduling loop (decide and commit).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}),
		ops: f.NewCounterVec(prometheus.CounterOpts{Name: "bora_driver_operations_total",
			Help: "Driver operations by kind and outcome."}, []string{"op", "outcome"}),
		energy: gauge("bora_energy_kwh_total",
			"Energy the hosts drew, in kWh (docs/models.md §5), over the daemon's life."),
		violations: gauge("bora_waiting_violation_ratio",
			"External leases that started after waiting longer than alpha times the mean external duration."),
		powerFailures: f.NewCounterVec(prometheus.CounterOpts{Name: "bora_power_failures_total",
			Help: "Hosts the power driver failed to switch on or off."}, []string{"op"}),
		bootsLate: counter("bora_boots_late_total",
			"Boots still going on when they were planned to be over."),
		opsLate: counter("bora_operations_late_total",
			"Operations on leases' VMs still going on when their reservation was over."),
		breaches: counter("bora_capacity_breaches_total",
			"Times a host was found running more cores or memory than it has (driver's view)."),
		passPanics: counter("bora_pass_panics_total",
			"Passes of the scheduling loop that panicked: thrown away, the state restored from the store."),
		rejections: f.NewCounterVec(prometheus.CounterOpts{Name: "bora_external_rejections_total",
			Help: "External leases rejected at submission, by reason (admission-limit: the admission stage), since borad started."}, []string{"reason"}),
		admLimit: gauge("bora_admission_limit",
			"The admission stage's limit K on admitted, unfinished external leases; -1: no limit (accept-all, or warming up)."),
		admAdmitted: gauge("bora_admission_admitted",
			"External leases admitted and not finished."),
		admThreshold: gauge("bora_admission_threshold_seconds",
			"The admission threshold D (0: not known yet)."),
		admInputs: f.NewGaugeVec(prometheus.GaugeOpts{Name: "bora_admission_input",
			Help: "The admission model's inputs as estimated over the window (docs/models.md §4): rates per second, times in seconds."}, []string{"input"}),
		admVR: gauge("bora_admission_violation_rate",
			"VR = (a*v + r)/(a + r) x 100 over the finished external leases the daemon keeps, against the current D."),
		admCompleted: gauge("bora_external_completed_percent",
			"Finished external leases the daemon keeps that are done, in percent of them."),
	}
}

var allStates = []scheduler.State{scheduler.Pending, scheduler.Rejected, scheduler.Scheduled, scheduler.Queued,
	scheduler.Preparing, scheduler.Running, scheduler.Suspending, scheduler.Suspended, scheduler.Resuming,
	scheduler.Migrating, scheduler.Done, scheduler.Cancelled, scheduler.Failed}

// counts gathers what the gauges and stats show (in the loop).
type counts struct {
	byState      map[string]int
	preemptions  int
	preemptedVMs int
	overhead     time.Duration
	usedCPU      int64
	capCPU       int64
	usedOn       []int64 // CPU leases hold on each host now, by slot-table ID
}

func (d *Daemon) count(now time.Time) counts {
	c := counts{byState: map[string]int{}}
	for _, s := range allStates {
		c.byState[string(s)] = 0
	}
	for _, l := range d.sched.Leases() {
		c.byState[string(l.State)]++
		c.preemptions += l.Preemptions
		c.preemptedVMs += l.Preemptions * l.Req.VMs
		c.overhead += l.Overhead
	}
	d.countOver(&c) // finished.go
	c.usedOn = make([]int64, len(d.hosts))
	for i, h := range d.hosts {
		c.usedOn[i] = d.leaseUse(slottable.HostID(i), now)[slottable.CPU] // hostpower.go: not a host's power reservation
		if h.Retired || !h.Enabled {
			continue
		}
		c.capCPU += h.CPU
		c.usedCPU += c.usedOn[i]
	}
	return c
}

func (d *Daemon) updateGauges(now time.Time) {
	c := d.count(now)
	for s, n := range c.byState {
		d.m.leases.WithLabelValues(s).Set(float64(n))
	}
	d.m.queue.Set(float64(d.sched.QueueLen()))
	d.m.preemptions.Set(float64(c.preemptions))
	d.m.preemptVMs.Set(float64(c.preemptedVMs))
	d.m.overhead.Set(c.overhead.Seconds())
	d.m.unknown.Set(float64(len(d.unknown)))
	if c.capCPU > 0 {
		d.m.utilisation.Set(float64(c.usedCPU) / float64(c.capCPU))
	}
	d.power.meterLoads(now, c.usedOn) // before the energy is read
	power := map[string]int{"on": 0, "off": 0, "booting": 0, "shutting-down": 0}
	kwh := 0.0
	for _, h := range d.hosts {
		if !h.Retired {
			power[h.Power]++
		}
		kwh += d.power.energy(now, h.Name)
	}
	d.m.energy.Set(kwh)
	d.m.violations.Set(d.power.violationRate())
	for p, n := range power {
		d.m.hosts.WithLabelValues(p).Set(float64(n))
	}
	d.adm.gauges() // admission.go
}
