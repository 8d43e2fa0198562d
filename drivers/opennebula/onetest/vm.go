package onetest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

// Op names a piece of driver work the stand-in can be told to fail.
type Op string

// Operations FailNext can fail, and where each failure leaves the VM (as
// oned does).
const (
	OpProlog      Op = "prolog"       // deploy's disk copy: PROLOG -> PROLOG_FAILURE
	OpBoot        Op = "boot"         // deploy's boot: BOOT -> BOOT_FAILURE
	OpSuspend     Op = "suspend"      // SAVE_SUSPEND -> back to RUNNING
	OpResume      Op = "resume"       // BOOT_SUSPENDED -> back to SUSPENDED
	OpMigrate     Op = "migrate"      // PROLOG_MIGRATE[_SUSPEND|_POWEROFF] -> ..._FAILURE
	OpLiveMigrate Op = "live-migrate" // MIGRATE -> back to RUNNING on the source host
	OpEpilog      Op = "epilog"       // EPILOG -> EPILOG_FAILURE
)

type failKey struct {
	vm int
	op Op
}

// transition is one state a VM entered.
type transition struct {
	state oca.State
	lcm   oca.LCMState
}

func (t transition) String() string {
	if t.state == oca.Active {
		return "ACTIVE/" + t.lcm.String()
	}
	return t.state.String()
}

// hist is one history record (a placement), with oned's times: the
// record's start and end, and those of its prolog (disk copy), running
// and epilog phases. oned opens a record on deploy, migrate and resume
// (a copy of the last one, on the same host), and after a failed live
// or save migration (a copy of the source's record: the VM is back).
type hist struct {
	seq      int
	hid      int
	hostname string
	ds       int
	stime    int64
	etime    int64
	pstime   int64
	petime   int64
	rstime   int64
	retime   int64
	estime   int64
	eetime   int64
	action   int
}

type vm struct {
	id, uid, gid int
	uname, gname string
	name         string
	state        oca.State
	lcm          oca.LCMState
	stime, etime int64
	tmpl, user   oca.Template
	history      []*hist
	trail        []transition
	gen          int
	ignoreACPI   bool
	cpu          float64
	mem          int64
}

// stateStr is oned's VirtualMachine::state_str: the LCM state of an
// ACTIVE VM, the state otherwise.
func (v *vm) stateStr() string {
	if v.state == oca.Active {
		return v.lcm.String()
	}
	return v.state.String()
}

func (v *vm) last() *hist {
	if len(v.history) == 0 {
		return nil
	}
	return v.history[len(v.history)-1]
}

// holdsHost reports whether the VM allocates capacity on its host.
func (v *vm) holdsHost() bool {
	switch v.state {
	case oca.Active, oca.Suspended, oca.Poweroff:
		return v.last() != nil
	}
	return false
}

func (v *vm) hostID() int {
	if h := v.last(); h != nil && v.holdsHost() {
		return h.hid
	}
	return -1
}

// prev is the record before the last (the source of a migration).
func (v *vm) prev() *hist {
	if len(v.history) < 2 {
		return nil
	}
	return v.history[len(v.history)-2]
}

// set changes v's state. There is no previous state to keep: oned's
// VirtualMachinePool::update copies the state into PREV_STATE and
// PREV_LCM_STATE before every save, so every document shows them equal
// to STATE and LCM_STATE (see renderVM).
func (s *Server) set(v *vm, st oca.State, lcm oca.LCMState) {
	if v.state == st && v.lcm == lcm {
		return
	}
	v.state, v.lcm = st, lcm
	v.trail = append(v.trail, transition{st, lcm})
}

// phase is a state the VM enters, how long it stays before the next, and
// what oned writes into the history record on entering it.
type phase struct {
	st  oca.State
	lcm oca.LCMState
	d   time.Duration
	on  func()
}

func active(lcm oca.LCMState, d time.Duration) phase { return phase{st: oca.Active, lcm: lcm, d: d} }

func inState(st oca.State) phase { return phase{st: st, lcm: oca.LcmInit} }

// with returns p that also runs f when entered.
func (p phase) with(f func()) phase {
	p.on = f
	return p
}

func (s *Server) unix() int64 { return s.now().Unix() }

// lcm runs f (the life-cycle manager's part of a request) after
// Delays.Dispatch: oned answers a request once it is queued, so for a
// while the VM shows the new history record and its old state. A later
// request on v cancels f.
func (s *Server) lcm(v *vm, f func()) {
	if s.delays.Dispatch <= 0 {
		f()
		return
	}
	v.gen++
	gen := v.gen
	s.after(s.delays.Dispatch, func() {
		if v.gen == gen {
			f()
		}
	})
}

// run moves v through phases, entering the first now; then runs once the
// last is entered. A later run (or done) on v cancels what is left.
func (s *Server) run(v *vm, phases []phase, then func()) {
	v.gen++
	gen := v.gen
	var step func(i int)
	step = func(i int) {
		p := phases[i]
		s.set(v, p.st, p.lcm)
		if p.on != nil {
			p.on()
		}
		if i == len(phases)-1 {
			if then != nil {
				then()
			}
			return
		}
		s.after(p.d, func() {
			if v.gen == gen {
				step(i + 1)
			}
		})
	}
	step(0)
}

// takeFail pops an injected failure for op on v.
func (s *Server) takeFail(v *vm, op Op) (string, bool) {
	k := failKey{v.id, op}
	msgs := s.fails[k]
	if len(msgs) == 0 {
		return "", false
	}
	s.fails[k] = msgs[1:]
	return msgs[0], true
}

// setError records a driver failure as oned does: USER_TEMPLATE/ERROR,
// stamped with the time.
func (s *Server) setError(v *vm, msg string) {
	v.user.Set("ERROR", s.now().Format(time.ANSIC)+" : "+msg)
}

// openHistory is the request's add_history: a new record on h, every
// time 0 until the life-cycle manager starts the work.
func (s *Server) openHistory(v *vm, h *host, ds int) {
	v.history = append(v.history, &hist{seq: len(v.history), hid: h.id, hostname: h.name, ds: ds})
}

// copyHistory is oned's cp_history / cp_previous_history: a new record
// on from's host, started now.
func (s *Server) copyHistory(v *vm, from *hist) *hist {
	now := s.unix()
	n := &hist{seq: len(v.history), hid: from.hid, hostname: from.hostname, ds: from.ds, stime: now, rstime: now}
	v.history = append(v.history, n)
	return n
}

func (s *Server) closeHistory(v *vm, action int) {
	if l := v.last(); l != nil && l.etime == 0 {
		l.etime = s.now().Unix()
		l.action = action
	}
}

func (s *Server) done(v *vm, action int) {
	v.gen++
	s.closeHistory(v, action)
	s.set(v, oca.Done, oca.LcmInit)
	v.etime = s.now().Unix()
}

// ---- deploy ----------------------------------------------------------

func (s *Server) startDeploy(v *vm) {
	d := s.delays
	cur := v.last()
	cur.stime, cur.pstime = s.unix(), s.unix()
	boot := active(oca.Boot, d.Boot).with(func() { cur.petime, cur.rstime = s.unix(), s.unix() })
	if msg, ok := s.takeFail(v, OpProlog); ok {
		s.run(v, []phase{active(oca.Prolog, d.Prolog), active(oca.PrologFailure, 0)}, func() { s.setError(v, msg) })
		return
	}
	if msg, ok := s.takeFail(v, OpBoot); ok {
		s.run(v, []phase{active(oca.Prolog, d.Prolog), boot, active(oca.BootFailure, 0)},
			func() { s.setError(v, msg) })
		return
	}
	s.run(v, []phase{active(oca.Prolog, d.Prolog), boot, active(oca.Running, 0)}, nil)
}

// ---- actions -----------------------------------------------------------

// wrongState is DispatchManager's message for an action in the wrong
// state.
func wrongState(v *vm) string { return "This action is not available for state " + v.stateStr() }

// action runs one.vm.action's action on v; it returns DispatchManager's
// error text (rc -2), or "" on success.
func (s *Server) action(v *vm, action string) (errText string, supported bool) {
	d := s.delays
	switch action {
	case "terminate", "terminate-hard":
		return s.terminate(v, action == "terminate-hard"), true
	case "suspend":
		if v.state != oca.Active || v.lcm != oca.Running {
			return wrongState(v), true
		}
		cur := v.last()
		cur.action = oca.ActionSuspend
		if msg, ok := s.takeFail(v, OpSuspend); ok {
			// save_failure: RUNNING again, the action cleared.
			s.run(v, []phase{active(oca.SaveSuspend, d.Save), active(oca.Running, 0).with(func() { cur.action = oca.ActionNone })},
				func() { s.setError(v, msg) })
		} else {
			s.run(v, []phase{active(oca.SaveSuspend, d.Save), inState(oca.Suspended)}, nil)
		}
		return "", true
	case "resume":
		switch {
		case v.state == oca.Suspended:
			s.lcm(v, func() { s.restore(v) })
		case v.state == oca.Poweroff:
			s.run(v, []phase{active(oca.BootPoweroff, d.Boot), active(oca.Running, 0)}, nil)
		case v.state == oca.Active && v.lcm == oca.Unknown:
			s.run(v, []phase{active(oca.BootUnknown, d.Boot), active(oca.Running, 0)}, nil)
		case v.state == oca.Stopped || v.state == oca.Undeployed:
			s.set(v, oca.Pending, oca.LcmInit)
		default:
			return wrongState(v), true
		}
		return "", true
	case "hold":
		if v.state != oca.Pending {
			return wrongState(v), true
		}
		s.set(v, oca.Hold, oca.LcmInit)
		return "", true
	case "release":
		if v.state != oca.Hold {
			return wrongState(v), true
		}
		s.set(v, oca.Pending, oca.LcmInit)
		return "", true
	case "poweroff", "poweroff-hard":
		if v.state != oca.Active || (v.lcm != oca.Running && v.lcm != oca.Unknown) {
			return wrongState(v), true
		}
		s.run(v, []phase{active(oca.ShutdownPoweroff, d.Shutdown), inState(oca.Poweroff)}, nil)
		return "", true
	}
	return "", false
}

// restore is the life-cycle manager's trigger_restore: the record of the
// suspension ends, a copy on the same host starts with ACTION resume;
// BOOT_SUSPENDED, then RUNNING (the action cleared, as on every boot) or,
// on failure, SUSPENDED again.
func (s *Server) restore(v *vm) {
	if v.state != oca.Suspended || v.last() == nil {
		return
	}
	v.last().etime = s.unix()
	n := s.copyHistory(v, v.last())
	n.action = oca.ActionResume
	boot := active(oca.BootSuspended, s.delays.Restore)
	if msg, ok := s.takeFail(v, OpResume); ok {
		s.run(v, []phase{boot, inState(oca.Suspended).with(func() { n.retime = s.unix() })},
			func() { s.setError(v, msg) })
		return
	}
	s.run(v, []phase{boot, active(oca.Running, 0).with(func() { n.action = oca.ActionNone })}, nil)
}

func (s *Server) terminate(v *vm, hard bool) string {
	d := s.delays
	action := oca.ActionTerminate
	if hard {
		action = oca.ActionTerminateHard
	}
	finish := func() { s.done(v, action) }
	switch v.state {
	case oca.Suspended, oca.Poweroff, oca.Stopped, oca.Undeployed:
		s.epilog(v, action)
	case oca.Init, oca.Pending, oca.Hold, oca.Cloning, oca.CloningFailure:
		s.done(v, action)
	case oca.Done:
	case oca.Active:
		switch {
		case v.lcm == oca.Running || v.lcm == oca.Unknown || (v.lcm == oca.Shutdown && hard):
			if !hard && v.ignoreACPI {
				// The guest ignores ACPI: oned gives up after its
				// timeout and the VM runs on.
				s.run(v, []phase{active(oca.Shutdown, d.ShutdownTimeout), active(oca.Running, 0)},
					func() { s.setError(v, "Error executing shutdown: timeout waiting for the guest to shut down") })
				return ""
			}
			s.epilog(v, action, active(oca.Shutdown, d.Shutdown))
		case v.lcm.IsFailure():
			s.run(v, []phase{active(oca.CleanupDelete, d.Shutdown), inState(oca.Done)}, finish)
		default:
			return fmt.Sprintf("Could not terminate VM %d, wrong state %s.", v.id, v.stateStr())
		}
	}
	return ""
}

// epilog removes the VM's files from its host (after the phases in
// pre), then the VM is DONE.
func (s *Server) epilog(v *vm, action int, pre ...phase) {
	if msg, ok := s.takeFail(v, OpEpilog); ok {
		s.run(v, append(pre, active(oca.Epilog, s.delays.Prolog), active(oca.EpilogFailure, 0)),
			func() { s.setError(v, msg) })
		return
	}
	s.run(v, append(pre, active(oca.Epilog, s.delays.Prolog), inState(oca.Done)),
		func() { s.done(v, action) })
}

// ---- allocation --------------------------------------------------------

// templateAttrs are the attributes oned keeps in a VM's TEMPLATE; every
// other attribute of the allocation template goes to USER_TEMPLATE.
var templateAttrs = map[string]bool{
	"CPU": true, "VCPU": true, "MEMORY": true, "DISK": true, "NIC": true, "NIC_ALIAS": true,
	"NIC_DEFAULT": true, "OS": true, "CONTEXT": true, "GRAPHICS": true, "INPUT": true,
	"FEATURES": true, "RAW": true, "PCI": true, "NUMA_NODE": true, "TOPOLOGY": true,
	"CPU_MODEL": true, "MEMORY_MAX": true, "VCPU_MAX": true, "MEMORY_SLOTS": true,
	"MEMORY_RESIZE_MODE": true, "VROUTER_ID": true, "TEMPLATE_ID": true, "SECURITY_GROUP_RULE": true,
	"SNAPSHOT": true, "SPICE_OPTIONS": true, "VIDEO": true, "BACKUP_CONFIG": true,
}

func (s *Server) allocate(u *user, text string, hold bool) (int, *oneErr) {
	const method = "one.vm.allocate"
	t, err := oca.ParseTemplate(text)
	if err != nil {
		return 0, errCode(method, oca.OneInternalError, "Parse error: "+err.Error())
	}
	memStr, _ := t.Get("MEMORY")
	mem, err := strconv.ParseInt(strings.TrimSpace(memStr), 10, 64)
	if err != nil || mem <= 0 {
		return 0, errCode(method, oca.OneAllocateError,
			"Error allocating a new virtual machine template. MEMORY attribute must be a positive integer value.")
	}
	cpuStr, _ := t.Get("CPU")
	cpu, err := strconv.ParseFloat(strings.TrimSpace(cpuStr), 64)
	if err != nil || cpu <= 0 {
		return 0, errCode(method, oca.OneAllocateError,
			"Error allocating a new virtual machine template. CPU attribute must be a positive float or integer value.")
	}
	id := s.nextVM
	s.nextVM++
	v := &vm{id: id, uid: u.id, gid: u.gid, uname: u.name, gname: u.gname,
		stime: s.now().Unix(), cpu: cpu, mem: mem}
	v.name = fmt.Sprintf("one-%d", id)
	if n, ok := t.Get("NAME"); ok && n != "" {
		v.name = n
	}
	for _, p := range t.Pairs {
		switch {
		case p.Key == "NAME":
		case templateAttrs[p.Key]:
			v.tmpl.Pairs = append(v.tmpl.Pairs, p)
		default:
			v.user.Pairs = append(v.user.Pairs, p)
		}
	}
	for _, vec := range t.Vectors {
		if templateAttrs[vec.Key] {
			v.tmpl.Vectors = append(v.tmpl.Vectors, vec)
		} else {
			v.user.Vectors = append(v.user.Vectors, vec)
		}
	}
	v.tmpl.Set("VMID", strconv.Itoa(id))
	st := oca.Pending
	if hold {
		st = oca.Hold
	}
	s.set(v, st, oca.LcmInit)
	s.vms[id] = v
	return id, nil
}
