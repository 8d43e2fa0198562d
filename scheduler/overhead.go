package scheduler

import (
	"time"

	"github.com/bora-sched/bora/overhead"
	"github.com/bora-sched/bora/slottable"
)

// Overheads holds the parameters of the overhead model (docs/models.md
// §2), with its formulas: package overhead, which the fake driver shares.
type Overheads = overhead.Params

// Storage is where suspend images are written (overhead.Storage): shared
// or local.
type Storage = overhead.Storage

// The storage models (docs/models.md §2).
const (
	StorageShared = overhead.StorageShared
	StorageLocal  = overhead.StorageLocal
)

// ParseStorage reads a storage model: shared or local.
func ParseStorage(v string) (Storage, error) { return overhead.ParseStorage(v) }

// DefaultOverheads are the reference values of docs/models.md §2
// (overhead.DefaultParams).
func DefaultOverheads() Overheads { return overhead.DefaultParams() }

// PreemptionCost is h(L) for a lease whose VMs have the given memory
// sizes, preempted with operation op, its VMs taken one after the other
// (exact on shared storage; PreemptionCostHosts knows the hosts).
func PreemptionCost(o Overheads, op Operation, mems []int64) time.Duration {
	return PreemptionCostHosts(o, op, [][]int64{mems})
}

// PreemptionCostHosts is h(L) for a lease whose VMs' memory sizes are
// grouped by host (docs/models.md §2: on local storage the hosts suspend
// and resume in parallel; the resumption is charged with the same
// grouping).
func PreemptionCostHosts(o Overheads, op Operation, byHost [][]int64) time.Duration {
	vms := 0
	for _, m := range byHost {
		vms += len(m)
	}
	switch op {
	case OpCancel, OpRequeue:
		return o.Cancel(vms)
	case OpSuspend:
		return o.SuspendResumeHosts(byHost)
	case OpMigrate:
		return o.MigrateHosts(byHost)
	}
	return 0
}

// memsOn is lease l's VMs' memory sizes grouped by hosts (one per VM, in
// the order hosts first appear); all in one group without hosts.
func (l *Lease) memsOn(hosts []slottable.HostID) [][]int64 {
	if len(hosts) == 0 {
		return [][]int64{l.mems()}
	}
	at := map[slottable.HostID]int{}
	var out [][]int64
	for _, h := range hosts {
		i, ok := at[h]
		if !ok {
			i = len(out)
			at[h] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], l.Req.Memory)
	}
	return out
}

// boundMems is the memory sizes of the VMs whose suspension or
// resumption one after the other bounds lease l's on whatever hosts a
// search finds (docs/models.md §2, searching with the overheads): all its
// VMs on shared storage, where they go one after the other wherever they
// are; on local storage, where the hosts work in parallel and each its own
// VMs in turn, only as many as one host can hold (MostPerHost), which is
// the longest any host's share can last. The search reserves this bound;
// onHosts then times the hosts found.
func (s *Scheduler) boundMems(l *Lease) []int64 {
	if !s.cfg.Overheads.Local() {
		return l.mems()
	}
	return memories(min(l.Req.VMs, max(1, s.table.MostPerHost(l.Per()))), l.Req.Memory)
}

// suspendTime is L^s for lease l's VMs on hosts (docs/models.md §2): on
// shared storage the hosts do not matter (the VMs go one after the other
// wherever they are), so they are not grouped.
func (s *Scheduler) suspendTime(l *Lease, hosts []slottable.HostID) time.Duration {
	if !s.cfg.Overheads.Local() {
		return s.cfg.Overheads.Suspend(l.mems())
	}
	return s.cfg.Overheads.SuspendHosts(l.memsOn(hosts))
}

// preemptionCost is h(L) for lease l preempted with op while its VMs are
// on hosts (nil: not running), grouped by host on local storage only.
func (s *Scheduler) preemptionCost(l *Lease, op Operation, hosts []slottable.HostID) time.Duration {
	if !s.cfg.Overheads.Local() {
		return PreemptionCost(s.cfg.Overheads, op, l.mems())
	}
	return PreemptionCostHosts(s.cfg.Overheads, op, l.memsOn(hosts))
}

// onHosts is sp with its resume and suspend steps timed for lease l's VMs
// on hosts: on local storage they last the longest host's share, not the
// sum (the search that found hosts reserved boundMems' time, an upper
// bound). On shared storage sp is returned as it is.
func (s *Scheduler) onHosts(l *Lease, sp []stepSpec, hosts []slottable.HostID) []stepSpec {
	o := s.cfg.Overheads
	if !o.Local() {
		return sp
	}
	out := make([]stepSpec, len(sp))
	for i, st := range sp {
		switch st.kind {
		case phResume:
			st.d = o.ResumeHosts(l.memsOn(hosts))
		case phSuspend:
			st.d = s.suspendTime(l, hosts)
		}
		out[i] = st
	}
	return out
}

func memories(vms int, mem int64) []int64 {
	m := make([]int64, vms)
	for i := range m {
		m[i] = mem
	}
	return m
}
