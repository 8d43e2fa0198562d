package slottable

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/bora-sched/bora/internal/idmap"
)

// Table is the slot table: hosts, their capacities and the reservations
// held on them. The zero value is not usable; call New. A Table is not
// safe for concurrent use when any goroutine modifies it; concurrent
// reads are safe.
type Table struct {
	names []string
	hosts []Host

	cp   []cpTree    // per host: its change points (a tree per host keeps a host's nodes together in memory)
	ver  []uint64    // per host: how many times its change points changed (countprof.go)
	prof []*profCell // per host: its last count profile (countprof.go)
	ms   mset        // every host's change points, with counts

	// peak and capv hold, host after host (Dims values each), the
	// host's peak usage over all time (at least 0: its change-point
	// tree's summary) and its capacity: fitSweep.roomy reads every host's
	// from these two flat arrays rather than from the hosts' own.
	peak []int64
	capv []int64

	rs     []Reservation // by slot; ID 0 marks a free slot
	absent []absence     // by slot: when its usage was not in the table (freed.go)
	raised []uint64      // by slot: 1 + the sequence number of the raised entry its Add logged, 0 for none (raised.go)
	it     itree         // each slot's interval, each host's interval tree
	free   []int32       // free slots
	byID   idIndex
	lease  idmap.Map[[]int32] // the slots of a lease's reservations, by lease ID

	nextID   ResID
	checking bool
	closed   []bool    // per host: no new placements (disabled, or switched off)
	freed    freedLog  // history of freed capacity, for FitMemo (freed.go)
	hid      hiddenSet // hidden reservations (hidden.go)
	// cl is the open hosts' usage added up, kept while freed is on
	// (cluster.go); nil otherwise.
	cl *clusterProfile

	// recent are the last resource vectors Add copied (ownRes), the
	// next to be replaced at nextRecent.
	recent     [4]Resources
	nextRecent uint8
	// spareSlots are emptied lists of a lease's reservations, for the next
	// lease's (a plan dropped and made again would otherwise grow its
	// list from nothing each time).
	spareSlots [][]int32

	// stamp counts the changes that may change how many VMs fit
	// somewhere (bump); instant is the room at one instant on the table
	// at one stamp (instant.go).
	stamp   uint64
	instant *instantCell
}

// maxSpareSlots bounds Table.spareSlots.
const maxSpareSlots = 64

// New returns an empty table whose resource dimensions are "cpu",
// "memory" and then the extra names, in that order.
func New(extra ...string) *Table {
	names := append([]string{"cpu", "memory"}, extra...)
	return &Table{
		names:   names,
		instant: new(instantCell),
	}
}

// ResourceNames returns the names of the dimensions, by resource index.
func (t *Table) ResourceNames() []string { return slices.Clone(t.names) }

// Dims returns the number of resource dimensions.
func (t *Table) Dims() int { return len(t.names) }

// SetChecking turns capacity checking on Add and SetEnd on or off (it is
// off in a new table).
func (t *Table) SetChecking(on bool) { t.checking = on }

// Checking reports whether capacity checking is on.
func (t *Table) Checking() bool { return t.checking }

// checkRes returns ErrBadResources unless v has one non-negative entry per
// dimension.
func (t *Table) checkRes(v Resources) error {
	if len(v) != len(t.names) {
		return fmt.Errorf("%w: %d entries, want %d", ErrBadResources, len(v), len(t.names))
	}
	for j, x := range v {
		if x < 0 {
			return fmt.Errorf("%w: %s is %d", ErrBadResources, t.names[j], x)
		}
	}
	return nil
}

// AddHost adds a host with the given capacity and returns its ID (the
// next dense ID). It returns ErrBadResources for a bad capacity vector.
func (t *Table) AddHost(name string, capacity Resources) (HostID, error) {
	if err := t.checkRes(capacity); err != nil {
		return 0, err
	}
	id := HostID(len(t.hosts))
	t.hosts = append(t.hosts, Host{ID: id, Name: name, Capacity: slices.Clone(capacity)})
	t.cp = append(t.cp, newCPTree(len(t.names)))
	t.peak = append(t.peak, make([]int64, len(t.names))...)
	t.capv = append(t.capv, capacity...)
	t.ver = append(t.ver, 0)
	t.prof = append(t.prof, new(profCell))
	t.it.addHost()
	t.bump()
	t.logFreed(0, id, negInf, posInf, nil, false, absence{}, 0, 0) // a new host: capacity everywhere
	if t.cl != nil {
		t.cl.noteHost(t, id)
		t.cl.openHost(t, id, +1)
	}
	return id, nil
}

// validHost reports whether h names a host.
func (t *Table) validHost(h HostID) bool { return h >= 0 && int(h) < len(t.hosts) }

// Host returns the host with ID id.
func (t *Table) Host(id HostID) (Host, bool) {
	if !t.validHost(id) {
		return Host{}, false
	}
	h := t.hosts[id]
	h.Capacity = slices.Clone(h.Capacity)
	return h, true
}

// Capacity returns host h's capacity in dimension dim (0 for a host or
// dimension the table does not have), without copying the vector.
func (t *Table) Capacity(h HostID, dim int) int64 {
	if !t.validHost(h) || dim < 0 || dim >= len(t.hosts[h].Capacity) {
		return 0
	}
	return t.hosts[h].Capacity[dim]
}

// HostName returns host h's name ("" for a host the table does not have).
func (t *Table) HostName(h HostID) string {
	if !t.validHost(h) {
		return ""
	}
	return t.hosts[h].Name
}

// Hosts returns every host, in ID order.
func (t *Table) Hosts() []Host {
	out := make([]Host, len(t.hosts))
	for i := range t.hosts {
		out[i], _ = t.Host(HostID(i))
	}
	return out
}

// NumHosts returns the number of hosts.
func (t *Table) NumHosts() int { return len(t.hosts) }

// Len returns the number of reservations.
func (t *Table) Len() int { return t.byID.len() }

// Add adds a reservation and returns the ID it assigns (r.ID is
// ignored). It returns ErrUnknownHost, ErrBadInterval or ErrBadResources
// for an invalid reservation, and, when checking is on, ErrOverCapacity
// if the host would be over capacity at some time; on error the table is
// unchanged. The table keeps its own copy of r.Res. Cost: O(log n).
func (t *Table) Add(r Reservation) (ResID, error) {
	if !t.validHost(r.Host) {
		return 0, fmt.Errorf("%w: %d", ErrUnknownHost, r.Host)
	}
	s, e := toNS(r.Start), toNS(r.End)
	if s >= e {
		return 0, fmt.Errorf("%w: [%v, %v)", ErrBadInterval, r.Start, r.End)
	}
	if err := t.checkRes(r.Res); err != nil {
		return 0, err
	}
	if t.checking {
		if err := t.checkFits(r.Host, s, e, r.Res); err != nil {
			return 0, err
		}
	}
	t.nextID++
	r.ID = t.nextID
	r.Res = t.ownRes(r.Res)
	slot := t.allocSlot()
	t.rs[slot] = r
	t.it.nodes[slot] = iNode{start: s, end: e, id: r.ID}
	t.it.insert(r.Host, slot)
	t.applyPair(r.Host, s, e, r.Res, +1)
	t.byID.set(r.ID, slot)
	slots := t.slotsOf(r.Lease)
	if slots == nil && len(t.spareSlots) > 0 { // a lease's first: in a list given back
		slots = t.spareSlots[len(t.spareSlots)-1]
		t.spareSlots = t.spareSlots[:len(t.spareSlots)-1]
	}
	t.lease.Set(r.Lease, append(slots, slot))
	t.absent[slot] = t.raisedNow()
	var readds uint64
	if ab, seq, ok := t.readded(&r, s, e); ok {
		t.absent[slot], readds = ab, seq+1
	}
	t.raised[slot] = 0
	if !allZero(r.Res) {
		t.raised[slot] = t.logRaised(r.Lease, r.Host, s, e, false, readds)
	}
	return r.ID, nil
}

// ownRes returns the table's own copy of v: one of the last few it made
// when one is equal (the reservations of a plan mostly hold the same
// resources), else a new one. The table never modifies them, so they may
// be shared.
func (t *Table) ownRes(v Resources) Resources {
	for _, c := range t.recent {
		if slices.Equal(c, v) {
			return c
		}
	}
	c := slices.Clone(v)
	t.recent[t.nextRecent%uint8(len(t.recent))] = c
	t.nextRecent++
	return c
}

func (t *Table) allocSlot() int32 {
	if k := len(t.free); k > 0 {
		s := t.free[k-1]
		t.free = t.free[:k-1]
		return s
	}
	t.rs = append(t.rs, Reservation{})
	t.absent = append(t.absent, absence{})
	t.raised = append(t.raised, 0)
	t.it.nodes = append(t.it.nodes, iNode{})
	return int32(len(t.rs) - 1)
}

// applyPair adds sign*res to host h's profile at a and takes it away at
// b (a reservation's start and end), keeping its peak and the global
// multiset of change points in step.
func (t *Table) applyPair(h HostID, a, b int64, res Resources, sign int64) {
	if allZero(res) {
		return
	}
	p := &t.cp[h]
	ca := p.add(a, res, sign)
	cb := p.add(b, res, -sign)
	p.refreshTop() // once for the two
	peak := t.peak[int(h)*p.dims : int(h+1)*p.dims]
	for j := range peak {
		peak[j] = max(0, p.whole(j).m) // 0 for an empty tree
	}
	if t.cl != nil {
		if !t.Closed(h) {
			t.cl.add(a, res, sign)
			t.cl.add(b, res, -sign)
		}
		t.cl.noteHost(t, h)
	}
	t.touch(h)
	t.noteChange(a, ca)
	t.noteChange(b, cb)
}

// noteChange keeps the global multiset of change points in step with a
// host's change point at key created (ch > 0) or deleted (ch < 0).
func (t *Table) noteChange(key int64, ch int) {
	switch {
	case ch > 0:
		t.ms.inc(key)
	case ch < 0:
		t.ms.dec(key)
	}
}

func allZero(v []int64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// Remove removes a reservation. It returns ErrUnknownReservation if id is
// not in the table. Cost: O(log n).
func (t *Table) Remove(id ResID) error {
	slot, ok := t.byID.get(id)
	if !ok {
		return fmt.Errorf("%w: %d", ErrUnknownReservation, id)
	}
	t.showSlot(slot)
	r := t.rs[slot]
	nd := t.it.nodes[slot]
	t.applyPair(r.Host, nd.start, nd.end, r.Res, -1)
	if !allZero(r.Res) {
		lo, hi := t.raiseGone(slot)
		t.logFreed(r.Lease, r.Host, nd.start, nd.end, r.Res, true, t.absent[slot], lo, hi)
	}
	t.raised[slot] = 0
	t.it.remove(r.Host, slot)
	t.it.nodes[slot] = iNode{}
	t.rs[slot] = Reservation{}
	t.free = append(t.free, slot)
	t.byID.del(id)
	slots := t.slotsOf(r.Lease)
	if i := slices.Index(slots, slot); i >= 0 {
		slots[i] = slots[len(slots)-1]
		slots = slots[:len(slots)-1]
	}
	if len(slots) == 0 {
		t.lease.Delete(r.Lease)
		if len(t.spareSlots) < maxSpareSlots {
			t.spareSlots = append(t.spareSlots, slots)
		}
	} else {
		t.lease.Set(r.Lease, slots)
	}
	return nil
}

// Renumber gives reservation id the ID that removing it and adding it
// again would give it, and returns that ID; nothing else changes (usage,
// interval and resources stay). It returns ErrUnknownReservation if id is
// not in the table. Cost: O(log n).
func (t *Table) Renumber(id ResID) (ResID, error) {
	ids := [1]ResID{id}
	if err := t.RenumberAll(ids[:]); err != nil {
		return 0, err
	}
	return ids[0], nil
}

// RenumberAll is Renumber of each of ids in turn, writing the new IDs over
// them; on ErrUnknownReservation the ones before the unknown one are
// renumbered. (The lease's list of its reservations holds their slots,
// which stay.)
func (t *Table) RenumberAll(ids []ResID) error {
	for k, id := range ids {
		slot, ok := t.byID.get(id)
		if !ok {
			return fmt.Errorf("%w: %d", ErrUnknownReservation, id)
		}
		r := &t.rs[slot]
		t.nextID++
		// The interval tree is ordered by (start, ID). The new ID is the
		// largest, so the reservation keeps its place unless another of
		// the host starts at the same time with a larger ID (the next one
		// has the same start): then it is taken out before its ID changes
		// and put back.
		if t.it.nodes[slot].sameNext {
			t.it.remove(r.Host, slot)
			t.it.nodes[slot].id = t.nextID
			t.it.insert(r.Host, slot)
		} else {
			t.it.nodes[slot].id = t.nextID
		}
		r.ID = t.nextID
		t.byID.del(id)
		t.byID.set(r.ID, slot)
		ids[k] = r.ID
	}
	return nil
}

// SetEnd moves a reservation's end, shortening or lengthening it. It
// returns ErrUnknownReservation for an unknown id, ErrBadInterval if end
// is not after the start, and, when checking is on and the reservation
// grows, ErrOverCapacity if the host would be over capacity in the added
// time; on error the table is unchanged. Cost: O(log n).
func (t *Table) SetEnd(id ResID, end time.Time) error {
	slot, ok := t.byID.get(id)
	if !ok {
		return fmt.Errorf("%w: %d", ErrUnknownReservation, id)
	}
	r := t.rs[slot]
	nd := t.it.nodes[slot]
	e := toNS(end)
	if e <= nd.start {
		return fmt.Errorf("%w: [%v, %v)", ErrBadInterval, r.Start, end)
	}
	if t.checking && e > nd.end {
		if err := t.checkFits(r.Host, nd.end, e, r.Res); err != nil {
			return err
		}
	}
	t.applyPair(r.Host, nd.end, e, r.Res, +1)
	if e < nd.end && !allZero(r.Res) {
		t.logFreed(r.Lease, r.Host, e, nd.end, r.Res, false, t.absent[slot], 0, 0)
	}
	if e > nd.end && !allZero(r.Res) {
		t.logRaised(r.Lease, r.Host, nd.end, e, false, 0)
	}
	t.it.setEnd(r.Host, slot, e)
	t.rs[slot].End = end
	return nil
}

// Has reports whether a reservation with ID id is in the table.
func (t *Table) Has(id ResID) bool {
	_, ok := t.byID.get(id)
	return ok
}

// HostOf returns the host of reservation id, and false if the table does
// not hold it.
func (t *Table) HostOf(id ResID) (HostID, bool) {
	slot, ok := t.byID.get(id)
	if !ok {
		return 0, false
	}
	return t.rs[slot].Host, true
}

// Get returns the reservation with ID id (with its own copy of Res).
func (t *Table) Get(id ResID) (Reservation, bool) {
	slot, ok := t.byID.get(id)
	if !ok {
		return Reservation{}, false
	}
	return t.copyOut(slot), true
}

// ReservedAs reports whether reservation id is in the table, on host h,
// over [start, end) exactly.
func (t *Table) ReservedAs(id ResID, h HostID, start, end time.Time) bool {
	slot, ok := t.byID.get(id)
	if !ok {
		return false
	}
	r := &t.rs[slot]
	return r.Host == h && r.Start.Equal(start) && r.End.Equal(end)
}

// LeaseOverlaps reports whether a reservation of lease overlaps
// [from, to): one EachOverlapping would visit, found from the lease's own
// reservations rather than the cluster's.
func (t *Table) LeaseOverlaps(lease uint64, from, to time.Time) bool {
	f, e := toNS(from), toNS(to)
	for _, slot := range t.slotsOf(lease) {
		if n := &t.it.nodes[slot]; n.start < e && n.end > f {
			return true
		}
	}
	return false
}

// copyOut returns slot's reservation with a fresh Res.
func (t *Table) copyOut(slot int32) Reservation {
	r := t.rs[slot]
	r.Res = slices.Clone(r.Res)
	return r
}

// ForLease returns the reservations of a lease, ordered by start then ID.
func (t *Table) ForLease(lease uint64) []Reservation {
	slots := slices.Clone(t.slotsOf(lease))
	t.sortSlots(slots)
	out := make([]Reservation, len(slots))
	for i, s := range slots {
		out[i] = t.copyOut(s)
	}
	return out
}

// sortSlots orders slots by start, then ID.
func (t *Table) sortSlots(slots []int32) {
	slices.SortFunc(slots, func(a, b int32) int {
		na, nb := &t.it.nodes[a], &t.it.nodes[b]
		if c := cmp.Compare(na.start, nb.start); c != 0 {
			return c
		}
		return cmp.Compare(na.id, nb.id)
	})
}

// Clone returns a deep copy of the table: changes to either do not affect
// the other. Reservation resource vectors, which the table never
// modifies, are shared.
func (t *Table) Clone() *Table { return t.CloneReusing(nil) }

// CloneReusing is Clone in the memory of old, a copy that Clone or
// CloneReusing returned before and that is not used again (nil: new
// memory), so that a caller copying the table for one what-if after
// another (the scheduler's check of deadline-bound victims) does not
// allocate a table each time. The copy is a new Table all the same: a
// memo made on old never holds on it (old keeps only its history, which
// such a memo reads).
func (t *Table) CloneReusing(old *Table) *Table {
	var o Table
	if old != nil {
		o = *old
		*old = Table{freed: old.freed}
	}
	c := &Table{
		names:    reuse(o.names, t.names),
		hosts:    resize(o.hosts, len(t.hosts)),
		cp:       resize(o.cp, len(t.cp)),
		peak:     reuse(o.peak, t.peak),
		capv:     reuse(o.capv, t.capv),
		ver:      reuse(o.ver, t.ver),
		prof:     resize(o.prof, len(t.prof)), // emptied below: profiles are not shared
		ms:       t.ms.clone(),
		rs:       reuse(o.rs, t.rs),
		absent:   reuse(o.absent, t.absent),
		raised:   reuse(o.raised, t.raised),
		it:       t.it.cloneInto(o.it),
		free:     reuse(o.free, t.free),
		byID:     t.byID.cloneInto(o.byID),
		lease:    t.lease.CloneInto(o.lease, reuse[[]int32]),
		nextID:   t.nextID,
		checking: t.checking,
		closed:   reuse(o.closed, t.closed),
		hid:      t.hid.cloneInto(o.hid),
		instant:  cmp.Or(o.instant, new(instantCell)),
		// The copy keeps no history of freed capacity: a memo made on
		// either table never helps on the other.
		freed: freedLog{base: t.freed.next, next: t.freed.next, fits: t.freed.fits},
	}
	c.instant.p.Store(nil) // the old copy's, at a stamp of its own
	for i, h := range t.hosts {
		h.Capacity = reuse(c.hosts[i].Capacity, h.Capacity)
		c.hosts[i] = h
	}
	for h := range t.cp {
		c.cp[h] = t.cp[h].cloneInto(c.cp[h])
		if cell := c.prof[h]; cell != nil {
			cell.p.Store(nil)
			cell.seen.Store(0)
		} else {
			c.prof[h] = new(profCell)
		}
	}
	return c
}

// reuse returns a copy of src in dst's memory when there is some (dst is
// not used again), as slices.Clone would make it (nil for nil).
func reuse[S ~[]E, E any](dst, src S) S {
	if src == nil || dst == nil {
		return slices.Clone(src)
	}
	return append(dst[:0], src...)
}

// resize returns s with length n, its elements kept (and those it had
// beyond its length, for their memory), grown when it is too short.
func resize[S ~[]E, E any](s S, n int) S {
	if cap(s) < n {
		s = append(s[:cap(s)], make(S, n-cap(s))...)
	}
	return s[:n]
}

// slotsOf returns the slots of lease's reservations (nil when it has
// none): the table's own list, in the order they were added but for
// removals (the last moves into the place of the one removed).
func (t *Table) slotsOf(lease uint64) []int32 {
	slots, _ := t.lease.Get(lease)
	return slots
}
