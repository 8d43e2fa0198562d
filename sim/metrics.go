package sim

import (
	"sort"
	"time"

	"github.com/bora-sched/bora/report"
	"github.com/bora-sched/bora/scheduler"
)

func secs(t time.Time) float64 { return t.Sub(Epoch).Seconds() }

// report turns the run into the report of docs/models.md §7.
func (e *engine) report(cfg Config) *report.Report {
	r := &report.Report{Name: cfg.Name, Trace: cfg.Trace, Hosts: cfg.Cluster.Hosts, Options: cfg.Options,
		Cluster: report.Cluster{Hosts: cfg.Cluster.Hosts, CPU: float64(cfg.Cluster.CPU) / 100, Memory: cfg.Cluster.Memory, Source: cfg.ClusterSource}}
	for _, l := range e.s.Leases() {
		r.Leases = append(r.Leases, leaseReport(l))
	}
	if n := e.gantt.len(); n > 0 {
		r.Gantt = make([]report.Interval, 0, n)
	}
	for iv := range e.gantt.all() {
		l := e.s.Lease(iv.Lease)
		r.Gantt = append(r.Gantt, report.Interval{Lease: iv.Lease, Host: int(iv.Host), Kind: iv.Kind,
			Origin: string(l.Req.Origin), StartS: secs(iv.Start), EndS: secs(iv.End)})
	}
	r.Utilisation = e.utilisation()
	r.Metrics = e.metrics()
	return r
}

func leaseReport(l *scheduler.Lease) report.Lease {
	out := report.Lease{ID: l.ID, Name: l.Req.Name, Kind: string(l.Req.Kind), Class: string(l.Req.Class),
		Origin: string(l.Req.Origin), VMs: l.Req.VMs, State: string(l.State), SubmitS: secs(l.Submitted),
		Preemptions: l.Preemptions, OverheadS: l.Overhead.Seconds(), Reason: string(l.Reason),
		RequestedS: l.Req.Duration.Seconds(), RealS: l.Req.RealDuration().Seconds(), Hosts: []int{}}
	if l.Detail != "" && l.Reason != "" {
		out.Reason += ": " + l.Detail
	}
	if !l.FirstStart.IsZero() {
		v := secs(l.FirstStart)
		out.StartS = &v
	}
	if !l.End.IsZero() && l.State != scheduler.Rejected {
		v := secs(l.End)
		out.EndS = &v
	}
	for _, h := range l.AllHosts {
		out.Hosts = append(out.Hosts, int(h))
	}
	return out
}

// utilisation samples the share of all CPU held by running VMs.
func (e *engine) utilisation() []report.Sample {
	type step struct {
		t   float64
		cpu int64
	}
	var steps []step
	for iv := range e.gantt.all() {
		if iv.Kind != "vm" {
			continue
		}
		steps = append(steps, step{secs(iv.Start), iv.CPU}, step{secs(iv.End), -iv.CPU})
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i].t < steps[j].t })
	total := float64(e.cfg.Cluster.CPU) * float64(e.cfg.Cluster.Hosts)
	var out []report.Sample
	var used int64
	for i, st := range steps {
		used += st.cpu
		if i+1 < len(steps) && steps[i+1].t == st.t {
			continue
		}
		out = append(out, report.Sample{T: st.t, Util: float64(used) / total})
	}
	return out
}

// metrics computes docs/models.md §7 over the finished run.
func (e *engine) metrics() report.Metrics {
	m := report.Metrics{PreemptedByOp: map[string]report.OpCount{}, PreemptionSearch: e.s.Stats().Search}
	var local, localRej, ext, extRej, extDone, migratable, migrated int
	var artSum, awrtNum, awrtDen float64
	var art int
	for _, l := range e.s.Leases() {
		m.Leases++
		if l.Req.Origin == scheduler.Local {
			local++
			localRej += b2i(l.State == scheduler.Rejected)
		} else {
			ext++
			extRej += b2i(l.State == scheduler.Rejected)
			extDone += b2i(l.State == scheduler.Done)
		}
		if l.Req.Class == scheduler.Migratable {
			migratable++
			migrated += b2i(l.Migrations > 0)
		}
		if l.DeadlineMissed || (l.State == scheduler.Done && !l.Deadline.IsZero() && l.End.After(l.Deadline)) {
			m.DeadlineMisses++
		}
		if l.Preemptions > 0 {
			m.PreemptedLeases++
			m.PreemptedVMs += l.Req.VMs
		}
		for op, n := range l.Ops {
			c := m.PreemptedByOp[string(op)]
			c.Leases += n
			c.VMs += n * l.Req.VMs
			m.PreemptedByOp[string(op)] = c
		}
		m.PreemptionOverheadS += l.Overhead.Seconds()
		if l.State != scheduler.Done {
			continue
		}
		m.Completed++
		if end := secs(l.End); end > m.MakespanS {
			m.MakespanS = end
		}
		if l.Req.Kind == scheduler.BestEffort {
			resp := l.End.Sub(l.Ready).Seconds()
			artSum += resp
			art++
			w := float64(l.Req.VMs) * l.Req.RealDuration().Seconds()
			awrtNum += w * l.End.Sub(l.Submitted).Seconds()
			awrtDen += w
		}
	}
	m.LocalRejectionRate = pct(localRej, local)
	m.ExternalRejectionRate = pct(extRej, ext)
	m.ExternalCompletedPercent = pct(extDone, ext)
	m.MigrationRate = pct(migrated, migratable)
	if art > 0 {
		m.ARTS = artSum / float64(art)
	}
	if awrtDen > 0 {
		m.AWRTS = awrtNum / awrtDen
	}
	m.Utilisation, m.UtilisationOverheadAdj = e.utilisationMetrics(m.MakespanS)
	e.adm.metrics(e, &m) // admission.go
	return m
}

// utilisationMetrics: sum of cpu*time of computing VMs over all the cpu of
// the cluster during the makespan, and (1 - overhead/computation)*100 with
// both in cpu-seconds (overhead: suspend, migrate, resume and stop).
func (e *engine) utilisationMetrics(makespan float64) (float64, float64) {
	var work, over float64
	for iv := range e.gantt.all() {
		cs := float64(iv.CPU) * iv.End.Sub(iv.Start).Seconds()
		switch iv.Kind {
		case "vm":
			work += cs
		case "suspend", "migrate", "resume", "stop":
			over += cs
		}
	}
	if makespan <= 0 || work <= 0 {
		return 0, 0
	}
	total := float64(e.cfg.Cluster.CPU) * float64(e.cfg.Cluster.Hosts) * makespan
	return work / total * 100, (1 - over/work) * 100
}

func pct(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d) * 100
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
