package preempt

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// This file holds the test fixtures: a small host model that answers the
// feasibility question the way the scheduler will, a brute force over all
// subsets, and a direct implementation of the policies used as reference.

// res is an amount of CPU and memory (MB).
type res struct{ cpu, mem int }

// vmOn is one VM of a lease, placed on a host.
type vmOn struct {
	host int
	res
}

func vm(host, cpu, mem int) vmOn { return vmOn{host, res{cpu, mem}} }

// hostLease is a preemptable lease running on the cluster.
type hostLease struct {
	id  uint64
	h   time.Duration
	vms []vmOn
}

// cluster is the host model: host capacities, non-preemptable load, the
// preemptable leases (the candidates, in order) and a request of want VMs
// of a given size.
type cluster struct {
	hosts  []res
	other  []res
	leases []hostLease
	want   int
	size   res
}

func newCluster() *cluster { return &cluster{} }

// host adds a host with the given capacity.
func (c *cluster) host(cpu, mem int) *cluster {
	c.hosts = append(c.hosts, res{cpu, mem})
	c.other = append(c.other, res{})
	return c
}

// busy adds non-preemptable load to a host.
func (c *cluster) busy(host, cpu, mem int) *cluster {
	c.other[host].cpu += cpu
	c.other[host].mem += mem
	return c
}

// lease adds a preemptable lease with overhead h and the given VMs.
func (c *cluster) lease(id uint64, h time.Duration, vms ...vmOn) *cluster {
	c.leases = append(c.leases, hostLease{id: id, h: h, vms: vms})
	return c
}

// request sets the request: n VMs of (cpu, mem).
func (c *cluster) request(n, cpu, mem int) *cluster {
	c.want, c.size = n, res{cpu, mem}
	return c
}

func (c *cluster) candidates() []Candidate {
	out := make([]Candidate, len(c.leases))
	for i, l := range c.leases {
		out[i] = Candidate{Lease: l.id, VMs: len(l.vms), Overhead: l.h}
	}
	return out
}

// feasible reports whether the request fits with the leases in set freed.
func (c *cluster) feasible(set Set) bool {
	return c.slots(set) >= c.want
}

// slots frees the leases in set and counts, per host, how many request VMs
// fit: min(free cpu / cpu, free mem / mem), summed over the hosts.
func (c *cluster) slots(set Set) int {
	free := make([]res, len(c.hosts))
	for h, cp := range c.hosts {
		free[h] = res{cp.cpu - c.other[h].cpu, cp.mem - c.other[h].mem}
	}
	for k, l := range c.leases {
		if set.Has(k) {
			continue
		}
		for _, v := range l.vms {
			free[v.host].cpu -= v.cpu
			free[v.host].mem -= v.mem
		}
	}
	slots := 0
	for _, f := range free {
		if f.cpu > 0 && f.mem > 0 {
			slots += min(f.cpu/c.size.cpu, f.mem/c.size.mem)
		}
	}
	return slots
}

// counted wraps an oracle and counts its calls.
func counted(f Feasible, calls *int) Feasible {
	return func(s Set) bool {
		*calls++
		return f(s)
	}
}

// bruteMinimal asks about all 2^n subsets and keeps the minimal feasible
// ones, in mask order.
func bruteMinimal(n int, f Feasible) []uint64 {
	ok := make([]bool, 1<<n)
	for m := range ok {
		ok[m] = f(maskSet(uint64(m)))
	}
	var out []uint64
	for m := range ok {
		if !ok[m] {
			continue
		}
		minimal := true
		for i := range n {
			if m&(1<<i) != 0 && ok[m&^(1<<i)] {
				minimal = false
				break
			}
		}
		if minimal {
			out = append(out, uint64(m))
		}
	}
	return out
}

// refSet is a brute-force candidate set with the numbers the policies use.
type refSet struct {
	mask  uint64
	h     time.Duration
	vms   int
	count int
	ids   []uint64
}

// refChoose applies policy p to the minimal masks directly: it sorts them by
// the policy's key and the tie-break and returns the first (0, false if
// there is none). MOML's filter compares 2h <= a+b for an even count
// instead of computing the mean.
func refChoose(p Policy, cands []Candidate, minimal []uint64) (uint64, bool) {
	var sets []refSet
	for _, m := range minimal {
		r := refSet{mask: m}
		for i, c := range cands {
			if m&(1<<i) != 0 {
				r.h += c.Overhead
				r.vms += c.VMs
				r.count++
				r.ids = append(r.ids, c.Lease)
			}
		}
		slices.Sort(r.ids)
		sets = append(sets, r)
	}
	if p == MOML && len(sets) > 0 {
		hs := make([]time.Duration, len(sets))
		for i, s := range sets {
			hs[i] = s.h
		}
		slices.Sort(hs)
		k := len(hs)
		sets = slices.DeleteFunc(sets, func(s refSet) bool {
			if k%2 == 1 {
				return s.h > hs[k/2]
			}
			return 2*s.h > hs[k/2-1]+hs[k/2]
		})
	}
	if len(sets) == 0 {
		return 0, false
	}
	slices.SortFunc(sets, func(a, b refSet) int {
		primary := 0
		if p == MLIP || p == MOML {
			primary = cmp.Compare(a.count, b.count)
		}
		return cmp.Or(primary, cmp.Compare(a.h, b.h), cmp.Compare(a.vms, b.vms), slices.Compare(a.ids, b.ids))
	})
	return sets[0].mask, true
}

// randomCluster builds a random instance with n candidates. Overheads come
// from a short list so that ties are common; lease ids are shuffled so their
// order differs from the index order.
func randomCluster(rng *rand.Rand, n int) *cluster {
	c := newCluster()
	hosts := 1 + rng.IntN(4)
	for range hosts {
		c.host(4+rng.IntN(13), 512*(8+rng.IntN(25)))
	}
	for h := range hosts {
		if rng.IntN(3) == 0 {
			c.busy(h, rng.IntN(3), 512*rng.IntN(4))
		}
	}
	ids := rng.Perm(n)
	hs := []time.Duration{0, 60 * time.Second, 100 * time.Second, 120 * time.Second, 300 * time.Second}
	for i := range n {
		nvm := 1 + rng.IntN(3)
		var vms []vmOn
		for range nvm {
			vms = append(vms, vm(rng.IntN(hosts), 1+rng.IntN(3), 256*(1+rng.IntN(12))))
		}
		h := hs[rng.IntN(len(hs))] * time.Duration(nvm)
		c.lease(uint64(10+ids[i]), h, vms...)
	}
	c.request(1+rng.IntN(6), 1+rng.IntN(4), 256*(2+rng.IntN(14)))
	return c
}

// checkMinimal fails the test unless s is feasible and infeasible without
// each of its members.
func checkMinimal(t *testing.T, f Feasible, s Set) {
	t.Helper()
	if !f(s.Clone()) {
		t.Fatalf("set %v is not feasible", s)
	}
	for _, i := range s.Indexes() {
		d := s.Clone()
		d.Remove(i)
		if f(d) {
			t.Fatalf("set %v is not minimal: feasible without %d", s, i)
		}
	}
}

// packedCluster builds a realistic random instance: n/4 hosts (at least 2)
// of 16 cpu and 32768 MB, n leases of 1-3 VMs placed where they fit, some
// non-preemptable load, and a request sized to need a few preemptions:
// want is between the free slots plus one and the slots with every lease
// gone, so the full set is feasible and the empty set is not (unless no
// lease is in the way at all, which the caller can check).
func packedCluster(rng *rand.Rand, n int) *cluster {
	c := newCluster()
	hosts := max(2, n/4)
	used := make([]res, hosts)
	for h := range hosts {
		c.host(16, 32768)
		if rng.IntN(2) == 0 {
			c.busy(h, 2, 4096)
			used[h] = res{2, 4096}
		}
	}
	ids := rng.Perm(n)
	for i := range n {
		var vms []vmOn
		for range 1 + rng.IntN(3) {
			size := res{1 + rng.IntN(4), 1024 * (1 + rng.IntN(8))}
			for try := 0; try < 2*hosts; try++ {
				h := rng.IntN(hosts)
				if used[h].cpu+size.cpu <= 16 && used[h].mem+size.mem <= 32768 {
					used[h].cpu += size.cpu
					used[h].mem += size.mem
					vms = append(vms, vmOn{h, size})
					break
				}
			}
		}
		perVM := []time.Duration{0, 100 * time.Second, 290 * time.Second, 447 * time.Second}[rng.IntN(4)]
		c.lease(uint64(1000+ids[i]), perVM*time.Duration(len(vms)), vms...)
	}
	c.request(1, 2+rng.IntN(3), 4096*(1+rng.IntN(2)))
	none, all := c.slots(NewSet(0)), c.slots(SetOf(indexes(n)...))
	c.want = min(all, none+1+rng.IntN(4))
	return c
}
