package onetest

import (
	"fmt"
	"sort"
	"time"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

// The test hooks below change the stand-in directly, as an operator or
// a failing host would; they are not XML-RPC calls and are not recorded.

func sortInts(a []int) { sort.Ints(a) }

// AddUser adds a user of group "users" (not an admin) and returns its id.
func (s *Server) AddUser(name, password string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := len(s.users)
	s.users = append(s.users, &user{id: id, name: name, password: password, gid: 1, gname: "users"})
	return id
}

// AddHost adds a MONITORED KVM host with cpu hundredths of a core and
// memMB of memory, and returns its id.
func (s *Server) AddHost(name string, cpu, memMB int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextHst
	s.nextHst++
	h := &host{id: id, name: name, cpu: cpu, memKB: memMB * 1024}
	s.setHost(h, oca.HostMonitored)
	s.hosts[id] = h
	return id
}

// AddHostUnmonitored adds a KVM host as onehost create does: INIT, its
// capacity (cpu hundredths of a core, memMB) reported as 0 until
// MonitorHost. It returns the host's id.
func (s *Server) AddHostUnmonitored(name string, cpu, memMB int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextHst
	s.nextHst++
	h := &host{id: id, name: name, cpu: cpu, memKB: memMB * 1024, state: oca.HostInit,
		trail: []oca.HostState{oca.HostInit}}
	s.hosts[id] = h
	return id
}

// MonitorHost: the first (or next) monitoring of hostID answers: the host
// is MONITORED and reports its capacity.
func (s *Server) MonitorHost(hostID int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.hosts[hostID]; h != nil {
		h.gen++
		s.setHost(h, oca.HostMonitored)
	}
}

// AddDatastore adds a system datastore.
func (s *Server) AddDatastore(id int, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dss[id] = name
}

// AddVM creates a VM owned by owner from a template in OpenNebula's
// syntax (as one.vm.allocate does: CPU and MEMORY are required, NAME
// names it, the attributes oned knows go to TEMPLATE and the others,
// BORA_LEASE among them, to USER_TEMPLATE), on HOLD if hold, else
// PENDING. It returns the VM id.
func (s *Server) AddVM(owner, template string, hold bool) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.userByName(owner)
	if u == nil {
		return 0, fmt.Errorf("onetest: no user %q", owner)
	}
	id, oe := s.allocate(u, template, hold)
	if oe != nil {
		return 0, fmt.Errorf("onetest: %s", oe.msg)
	}
	return id, nil
}

// SetDelays changes how long the working states last (for the VM
// operations started from now on).
func (s *Server) SetDelays(d Delays) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delays = d
}

// SetCallDelay makes every call of method wait d before it is served, as
// a slow or distant oned answers (0: no wait). Other calls are served
// meanwhile; a call whose client gives up during the wait is never
// served (nor recorded).
func (s *Server) SetCallDelay(method string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.callDelay[method] = d
}

// Delayed is how many calls of method are waiting out their delay now.
func (s *Server) Delayed(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delayed[method]
}

// FailNext makes the next op on vmID fail with msg: the VM goes where
// oned leaves it on such a failure and USER_TEMPLATE/ERROR holds msg.
func (s *Server) FailNext(vmID int, op Op, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := failKey{vmID, op}
	s.fails[k] = append(s.fails[k], msg)
}

// RejectNext makes the next call to method answer [false, "[method]
// msg", code] (after authentication).
func (s *Server) RejectNext(method string, code oca.OneErrCode, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejects[method] = append(s.rejects[method], reject{code, msg})
}

// IgnoreACPI makes the guest of vmID ignore (or obey) ACPI shutdown
// requests: a soft terminate then stays in SHUTDOWN until oned's timeout.
func (s *Server) IgnoreACPI(vmID int, ignore bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.vms[vmID]; v != nil {
		v.ignoreACPI = ignore
	}
}

// GuestPoweroff: the guest of a RUNNING VM shuts itself down; oned's
// monitoring finds it gone and the VM becomes POWEROFF.
func (s *Server) GuestPoweroff(vmID int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vms[vmID]
	if v == nil || v.state != oca.Active || v.lcm != oca.Running {
		return fmt.Errorf("onetest: vm %d is not RUNNING", vmID)
	}
	v.gen++
	s.set(v, oca.Poweroff, oca.LcmInit)
	return nil
}

// Terminate: someone else terminates vmID (onevm terminate [--hard]).
func (s *Server) Terminate(vmID int, hard bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vms[vmID]
	if v == nil {
		return fmt.Errorf("onetest: no vm %d", vmID)
	}
	if msg := s.terminate(v, hard); msg != "" {
		return fmt.Errorf("onetest: %s", msg)
	}
	return nil
}

// FailHost: the host stops answering; it goes to ERROR and its running
// VMs to UNKNOWN.
func (s *Server) FailHost(hostID int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hosts[hostID]
	if h == nil {
		return
	}
	h.gen++
	s.setHost(h, oca.HostError)
	for _, id := range s.vmIDs() {
		v := s.vms[id]
		if v.hostID() == hostID && v.state == oca.Active && v.lcm == oca.Running {
			v.gen++
			s.set(v, oca.Active, oca.Unknown)
		}
	}
}

// RecoverHost: the host answers again; it is MONITORED and its UNKNOWN
// VMs RUNNING.
func (s *Server) RecoverHost(hostID int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hosts[hostID]
	if h == nil {
		return
	}
	s.setHost(h, oca.HostMonitored)
	for _, id := range s.vmIDs() {
		v := s.vms[id]
		if v.hostID() == hostID && v.state == oca.Active && v.lcm == oca.Unknown {
			s.set(v, oca.Active, oca.Running)
		}
	}
}

// State is vmID's state and LCM state; ok is false for an unknown VM.
func (s *Server) State(vmID int) (st oca.State, lcm oca.LCMState, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vms[vmID]
	if v == nil {
		return 0, 0, false
	}
	return v.state, v.lcm, true
}

// Trail is every state vmID went through, in order: "HOLD",
// "ACTIVE/PROLOG", "ACTIVE/BOOT", "ACTIVE/RUNNING", ...
func (s *Server) Trail(vmID int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vms[vmID]
	if v == nil {
		return nil
	}
	out := make([]string, len(v.trail))
	for i, t := range v.trail {
		out[i] = t.String()
	}
	return out
}

// Placements are the hosts of vmID's history records, in order.
func (s *Server) Placements(vmID int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vms[vmID]
	if v == nil {
		return nil
	}
	var out []string
	for _, h := range v.history {
		out = append(out, h.hostname)
	}
	return out
}

// VMHost is the host vmID occupies ("" if none).
func (s *Server) VMHost(vmID int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vms[vmID]
	if v == nil || v.hostID() < 0 {
		return ""
	}
	return v.last().hostname
}

// UserTemplate is a copy of vmID's USER_TEMPLATE.
func (s *Server) UserTemplate(vmID int) oca.Template {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vms[vmID]
	if v == nil {
		return oca.Template{}
	}
	return v.user.Clone()
}

// HostState is hostID's state.
func (s *Server) HostState(hostID int) oca.HostState {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.hosts[hostID]; h != nil {
		return h.state
	}
	return -1
}

// HostTrail is every state hostID went through.
func (s *Server) HostTrail(hostID int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hosts[hostID]
	if h == nil {
		return nil
	}
	out := make([]string, len(h.trail))
	for i, st := range h.trail {
		out[i] = st.String()
	}
	return out
}

// Calls is every XML-RPC call received so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// CallStrings renders Calls, leaving out the methods in skip (e.g. the
// polling "one.vm.info").
func (s *Server) CallStrings(skip ...string) []string {
	drop := map[string]bool{}
	for _, m := range skip {
		drop[m] = true
	}
	var out []string
	for _, c := range s.Calls() {
		if !drop[c.Method] {
			out = append(out, c.String())
		}
	}
	return out
}

// ResetCalls forgets the calls received so far.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}

// Await waits until vmID is in st (and lcm, for ACTIVE) or timeout
// passes.
func (s *Server) Await(vmID int, st oca.State, lcm oca.LCMState, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		got, gotLCM, ok := s.State(vmID)
		if ok && got == st && (st != oca.Active || gotLCM == lcm) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("onetest: vm %d is %v/%v after %v, want %v/%v", vmID, got, gotLCM, timeout, st, lcm)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
