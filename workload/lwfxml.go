package workload

import (
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// ReadLWFXML reads Haizea's Lease Workload Format (docs/formats.md §2):
// a <lease-workload> with an optional <site> and <lease-requests>, each
// <lease-request arrival="HH:MM:SS"> holding an optional <realduration>
// and one <lease>. A lease's kind comes from <start>: empty is
// best-effort, <now/> immediate, <exact time="..."/> an advance
// reservation; with a <deadline>, an exact start (as in Haizea) or an
// empty one makes a deadline lease whose earliest start is that time. Times accept "[+][DD:]HH:MM:SS[.ff]" and seconds as
// offsets from the simulation start, and "YYYY-MM-DD HH:MM:SS" relative to
// opt.Epoch. CPU amounts are percent of a core and go straight into
// Request.CPU; a node-set without a CPU or Memory <res> gets opt's
// per-VM default. Name is the lease id (the 1-based request number when
// there is none), Image the disk-image id. preemptible="true" makes the
// lease external and preemptable (opt's class for preemptable leases),
// "false" non-preemptable; without the attribute, opt's defaults by kind
// apply. The <site>, when present, is returned as Trace.Site.
//
// Not XML, an unknown element or a missing required one is a *ParseError
// wrapping ErrSyntax; a bad attribute value one wrapping ErrBadValue; a
// lease whose node-sets differ in capacity one wrapping ErrUnsupported; a
// lease failing Validate one wrapping ErrInvalidRequest. Each names the
// element path and its line.
func ReadLWFXML(r io.Reader, name string, opt Options) (*Trace, error) {
	root, err := parseXML(r, name)
	if err != nil {
		return nil, err
	}
	if root.name != "lease-workload" {
		return nil, root.pos(name, "").syntax("the root element is <%s>, want <lease-workload>", root.name)
	}
	if err := root.only(name, "description", "site", "lease-requests"); err != nil {
		return nil, err
	}
	t := &Trace{}
	if site, err := root.one(name, "site", false); err != nil {
		return nil, err
	} else if site != nil {
		if t.Site, err = lwfSite(name, site); err != nil {
			return nil, err
		}
	}
	reqs, err := root.one(name, "lease-requests", false)
	if err != nil || reqs == nil {
		return t, err
	}
	if err := reqs.only(name, "lease-request"); err != nil {
		return nil, err
	}
	for i, lr := range reqs.children {
		req, err := lwfRequest(name, lr, i+1, opt)
		if err != nil {
			return nil, err
		}
		t.Requests = append(t.Requests, req)
	}
	return t, nil
}

// lwfSite reads <site>: its node-sets, summed into a Site.
func lwfSite(file string, site *xnode) (*Site, error) {
	if err := site.only(file, "resource-types", "nodes"); err != nil {
		return nil, err
	}
	if _, err := site.one(file, "resource-types", false); err != nil {
		return nil, err
	}
	nodes, err := site.one(file, "nodes", true)
	if err != nil {
		return nil, err
	}
	sets, err := lwfNodeSets(file, nodes, 0, 0)
	if err != nil {
		return nil, err
	}
	return newSite(sets), nil
}

// lwfNodeSets reads the <node-set>s of a <nodes> element. A missing CPU or
// Memory amount is cpu or mem.
func lwfNodeSets(file string, nodes *xnode, cpu, mem int64) ([]NodeSet, error) {
	if err := nodes.only(file, "node-set"); err != nil {
		return nil, err
	}
	if len(nodes.children) == 0 {
		return nil, nodes.pos(file, "").syntax("missing <node-set>")
	}
	var sets []NodeSet
	for _, ns := range nodes.children {
		n, _, err := ns.attr(file, "numnodes", true)
		if err != nil {
			return nil, err
		}
		hosts, err := parseWhole(n, 1, maxVMs)
		if err != nil {
			return nil, ns.pos(file, "numnodes").bad("%v", err)
		}
		set := NodeSet{Hosts: int(hosts), CPU: cpu, Memory: mem}
		if err := lwfResources(file, ns, &set); err != nil {
			return nil, err
		}
		sets = append(sets, set)
	}
	return sets, nil
}

// lwfResources reads the <res> amounts of a node-set. Resource types other
// than CPU and Memory (Disk, Net) are accepted and ignored.
func lwfResources(file string, ns *xnode, set *NodeSet) error {
	if err := ns.only(file, "res"); err != nil {
		return err
	}
	for _, res := range ns.children {
		typ, _, err := res.attr(file, "type", true)
		if err != nil {
			return err
		}
		amount, _, err := res.attr(file, "amount", true)
		if err != nil {
			return err
		}
		var limit int64
		var dst *int64
		switch typ {
		case "CPU":
			limit, dst = maxCores*100, &set.CPU
		case "Memory":
			limit, dst = maxMemory, &set.Memory
		default:
			continue
		}
		if *dst, err = parseWhole(amount, 0, limit); err != nil {
			return res.pos(file, "amount").bad("%v", err)
		}
	}
	return nil
}

// lwfRequest reads one <lease-request>: the arrival, the real duration and
// the lease.
func lwfRequest(file string, lr *xnode, index int, opt Options) (scheduler.Request, error) {
	var req scheduler.Request
	if err := lr.only(file, "realduration", "lease"); err != nil {
		return req, err
	}
	arrival, _, err := lr.attr(file, "arrival", true)
	if err != nil {
		return req, err
	}
	if req.Arrival, err = parseTime(arrival, opt.epoch(), false); err != nil {
		return req, lr.pos(file, "arrival").bad("%v", err)
	}
	if rd, err := lr.one(file, "realduration", false); err != nil {
		return req, err
	} else if rd != nil {
		if req.Real, err = lwfDuration(file, rd); err != nil {
			return req, err
		}
	}
	lease, err := lr.one(file, "lease", true)
	if err != nil {
		return req, err
	}
	if err := lwfLease(file, lease, &req, opt); err != nil {
		return req, err
	}
	if req.Name == "" {
		req.Name = strconv.Itoa(index)
	}
	return req, check(lease.pos(file, ""), req)
}

// lwfLease reads a <lease> element into req.
func lwfLease(file string, l *xnode, req *scheduler.Request, opt Options) error {
	if err := l.only(file, "nodes", "start", "duration", "deadline", "software"); err != nil {
		return err
	}
	req.Name, _, _ = l.attr(file, "id", false)
	if err := lwfLeaseNodes(file, l, req, opt); err != nil {
		return err
	}
	d, err := l.one(file, "duration", true)
	if err != nil {
		return err
	}
	if req.Duration, err = lwfDuration(file, d); err != nil {
		return err
	}
	if err := lwfDeadline(file, l, req, opt); err != nil {
		return err
	}
	if err := lwfStart(file, l, req, opt); err != nil {
		return err
	}
	if err := lwfSoftware(file, l, req); err != nil {
		return err
	}
	return lwfClass(file, l, req, opt)
}

// lwfLeaseNodes reads the lease's <nodes>: the VM count and per-VM size.
func lwfLeaseNodes(file string, l *xnode, req *scheduler.Request, opt Options) error {
	nodes, err := l.one(file, "nodes", true)
	if err != nil {
		return err
	}
	sets, err := lwfNodeSets(file, nodes, opt.CPUPerVM, opt.MemoryPerVM)
	if err != nil {
		return err
	}
	req.CPU, req.Memory = sets[0].CPU, sets[0].Memory
	for i, s := range sets {
		if s.CPU != req.CPU || s.Memory != req.Memory {
			return nodes.children[i].pos(file, "").errorf(ErrUnsupported,
				"node-sets of different capacities in one lease (%s and %d MB vs %s and %d MB); a lease's VMs must be alike",
				scheduler.Cores(s.CPU), s.Memory, scheduler.Cores(req.CPU), req.Memory)
		}
		req.VMs += s.Hosts
	}
	if req.VMs > maxVMs {
		return nodes.pos(file, "").bad("%d VMs is more than %d", req.VMs, maxVMs)
	}
	return nil
}

// lwfDuration reads the time attribute of a duration element.
func lwfDuration(file string, n *xnode) (time.Duration, error) {
	s, _, err := n.attr(file, "time", true)
	if err != nil {
		return 0, err
	}
	d, err := parseDuration(s, false)
	if err == nil && d < 0 {
		err = valuef("%q is negative", s)
	}
	if err != nil {
		return 0, n.pos(file, "time").bad("%v", err)
	}
	return d, nil
}

// lwfDeadline reads the optional <deadline time="...">.
func lwfDeadline(file string, l *xnode, req *scheduler.Request, opt Options) error {
	dl, err := l.one(file, "deadline", false)
	if err != nil || dl == nil {
		return err
	}
	s, _, err := dl.attr(file, "time", true)
	if err != nil {
		return err
	}
	if req.Deadline, err = parseTime(s, opt.epoch(), false); err != nil {
		return dl.pos(file, "time").bad("%v", err)
	}
	if req.Deadline <= 0 {
		return dl.pos(file, "time").bad("%q is not after the simulation start", s)
	}
	return nil
}

// lwfStart reads <start>: empty for best-effort, <now/> for immediate,
// <exact time="..."/> for an advance reservation, or for a deadline lease
// (with the exact time as its earliest start) when a deadline is given.
func lwfStart(file string, l *xnode, req *scheduler.Request, opt Options) error {
	st, err := l.one(file, "start", true)
	if err != nil {
		return err
	}
	if err := st.only(file, "now", "exact"); err != nil {
		return err
	}
	switch {
	case len(st.children) == 0:
		req.Kind = scheduler.BestEffort
		if req.Deadline > 0 {
			req.Kind = scheduler.Deadline
		}
		return nil
	case len(st.children) > 1:
		return st.children[1].pos(file, "").syntax("<start> holds more than one of <now/> and <exact/>")
	case st.children[0].name == "now":
		req.Kind = scheduler.Immediate
		return nil
	}
	exact := st.children[0]
	s, _, err := exact.attr(file, "time", true)
	if err != nil {
		return err
	}
	if req.Start, err = parseTime(s, opt.epoch(), false); err != nil {
		return exact.pos(file, "time").bad("%v", err)
	}
	req.Kind = scheduler.AdvanceReservation
	if req.Deadline > 0 {
		req.Kind = scheduler.Deadline
	}
	return nil
}

// lwfSoftware reads the optional <software>: <none/> or a <disk-image>
// whose id becomes the image.
func lwfSoftware(file string, l *xnode, req *scheduler.Request) error {
	sw, err := l.one(file, "software", false)
	if err != nil || sw == nil {
		return err
	}
	if err := sw.only(file, "none", "disk-image"); err != nil {
		return err
	}
	if len(sw.children) != 1 {
		return sw.pos(file, "").syntax("<software> must hold exactly one of <none/> and <disk-image/>")
	}
	img := sw.children[0]
	if img.name == "none" {
		return nil
	}
	if req.Image, _, err = img.attr(file, "id", true); err != nil {
		return err
	}
	if size, ok, _ := img.attr(file, "size", false); ok {
		if _, err := parseWhole(size, 0, maxMemory); err != nil {
			return img.pos(file, "size").bad("%v", err)
		}
	}
	return nil
}

// lwfClass sets origin and class from the preemptible attribute and opt.
func lwfClass(file string, l *xnode, req *scheduler.Request, opt Options) error {
	var class scheduler.Class
	if v, ok, _ := l.attr(file, "preemptible", false); ok {
		switch strings.ToLower(v) {
		case "true":
			class = opt.preemptible(true)
		case "false":
			class = opt.preemptible(false)
		default:
			return l.pos(file, "preemptible").bad("%q is neither true nor false", v)
		}
	}
	req.Origin, req.Class = opt.classify(req.Kind, "", class)
	return nil
}
