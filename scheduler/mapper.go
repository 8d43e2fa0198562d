package scheduler

import (
	"cmp"
	"slices"
	"sort"

	"github.com/bora-sched/bora/slottable"
)

// HostOption is a host that can take some of a lease's VMs at the chosen
// start: how many, and whether the host already runs something then.
type HostOption struct {
	Host  slottable.HostID
	Count int  // VMs of the lease that fit there for the whole interval
	Busy  bool // the host holds other reservations at the start
}

// Mapper chooses a host for each of n VMs among the options (whose counts
// add up to at least n). It returns n host IDs, one per VM. It may reorder
// options: the scheduler makes the slice for the call (sorting a copy was
// a fourteenth of a simulation's allocations).
type Mapper func(options []HostOption, n int) []slottable.HostID

// mappers is the registry of host-selection policies, by config name.
var mappers = map[string]Mapper{
	"pack":   Pack,
	"spread": Spread,
}

// MapperNames lists the registered mappers.
func MapperNames() []string {
	names := make([]string, 0, len(mappers))
	for n := range mappers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Pack fills as few hosts as it can, preferring hosts that already run
// something (so idle hosts stay idle and can be switched off), then hosts
// with room for more of the lease, then lower IDs.
func Pack(options []HostOption, n int) []slottable.HostID {
	o := options
	// A total order (a host is one option): the same result as any sort.
	slices.SortFunc(o, func(a, b HostOption) int {
		if a.Busy != b.Busy {
			if a.Busy {
				return -1
			}
			return 1
		}
		if a.Count != b.Count {
			return cmp.Compare(b.Count, a.Count)
		}
		return cmp.Compare(a.Host, b.Host)
	})
	hosts := make([]slottable.HostID, 0, n)
	for _, h := range o {
		for k := 0; k < h.Count && len(hosts) < n; k++ {
			hosts = append(hosts, h.Host)
		}
	}
	return hosts
}

// Spread puts the VMs on as many hosts as it can: idle hosts first, then
// those with the most room, one VM per host in turn.
func Spread(options []HostOption, n int) []slottable.HostID {
	o := options
	sort.Slice(o, func(i, j int) bool {
		if o[i].Busy != o[j].Busy {
			return !o[i].Busy
		}
		if o[i].Count != o[j].Count {
			return o[i].Count > o[j].Count
		}
		return o[i].Host < o[j].Host
	})
	left := make([]int, len(o))
	for i := range o {
		left[i] = o[i].Count
	}
	hosts := make([]slottable.HostID, 0, n)
	for len(hosts) < n {
		placed := false
		for i := range o {
			if left[i] > 0 && len(hosts) < n {
				hosts = append(hosts, o[i].Host)
				left[i]--
				placed = true
			}
		}
		if !placed {
			break
		}
	}
	return hosts
}
