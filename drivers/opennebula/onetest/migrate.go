package onetest

import "github.com/bora-sched/bora/drivers/opennebula/oca"

// startMigrate is the life-cycle manager's part of one.vm.migrate (the
// request already opened the record on the destination, see
// openHistory), after Delays.Dispatch (see lcm). The history follows
// LifeCycleActions.cc and LifeCycleStates.cc: the source's record ends
// (ETIME, RETIME) when the VM leaves it, the destination's gets PSTIME
// and PETIME around the disk copy and RSTIME once the VM runs there.
func (s *Server) startMigrate(v *vm, live bool, mtype int) {
	s.lcm(v, func() {
		cur, prev := v.last(), v.prev()
		if cur == nil || prev == nil {
			return
		}
		switch {
		case v.state == oca.Active && v.lcm == oca.Running && live:
			s.liveMigrate(v, cur, prev)
		case v.state == oca.Active && v.lcm == oca.Running:
			s.saveMigrate(v, cur, prev, mtype)
		case v.state == oca.Active && v.lcm == oca.Unknown,
			v.state == oca.Suspended, v.state == oca.Poweroff:
			s.prologMigrate(v, cur, prev)
		}
	})
}

// leave ends the source's record: the VM has left it.
func (s *Server) leave(prev *hist) { prev.etime, prev.retime = s.unix(), s.unix() }

// liveMigrate: MIGRATE, then RUNNING on the destination. On failure the
// destination's record ends and a copy of the source's opens: the VM
// runs where it was.
func (s *Server) liveMigrate(v *vm, cur, prev *hist) {
	cur.stime = s.unix()
	prev.action = oca.ActionLiveMigrate
	migrate := active(oca.Migrate, s.delays.Migrate)
	if msg, ok := s.takeFail(v, OpLiveMigrate); ok {
		s.run(v, []phase{migrate, active(oca.Running, 0).with(func() {
			cur.etime = s.unix()
			s.leave(prev)
			s.copyHistory(v, prev)
		})}, func() { s.setError(v, msg) })
		return
	}
	s.run(v, []phase{migrate, active(oca.Running, 0).with(func() {
		cur.rstime = s.unix()
		s.leave(prev)
	})}, nil)
}

// saveMigrate is the cold migration of a running VM: SAVE_MIGRATE (or
// SHUTDOWN_POWEROFF for the poweroff types), PROLOG_MIGRATE, then
// BOOT_MIGRATE (or BOOT) and RUNNING on the destination.
func (s *Server) saveMigrate(v *vm, cur, prev *hist, mtype int) {
	d := s.delays
	cur.stime = s.unix()
	cur.action, prev.action = oca.ActionMigrate, oca.ActionMigrate
	first := active(oca.SaveMigrate, d.Save)
	boot := active(oca.BootMigrate, d.Restore)
	if mtype != oca.MigrateSave {
		first = active(oca.ShutdownPoweroff, d.Shutdown)
		boot = active(oca.Boot, d.Boot)
	}
	prolog := active(oca.PrologMigrate, d.Prolog).with(func() {
		s.leave(prev)
		cur.pstime = s.unix()
	})
	boot = boot.with(func() { cur.petime, cur.rstime = s.unix(), s.unix() })
	if msg, ok := s.takeFail(v, OpMigrate); ok {
		s.run(v, []phase{first, prolog, active(oca.PrologMigrateFailure, 0)}, func() { s.setError(v, msg) })
		return
	}
	s.run(v, []phase{first, prolog, boot, active(oca.Running, 0)}, nil)
}

// prologMigrate moves a VM that does not run (SUSPENDED, POWEROFF, or
// UNKNOWN on a failed host): the source's record ends at once, the disk
// copy runs, and the VM is back in its state on the destination (an
// UNKNOWN one boots there).
func (s *Server) prologMigrate(v *vm, cur, prev *hist) {
	d := s.delays
	s.leave(prev)
	cur.stime, cur.pstime = s.unix(), s.unix()
	cur.action = oca.ActionMigrate
	copied := func() { cur.petime = s.unix() }
	var working, failed oca.LCMState
	var end []phase
	switch v.state {
	case oca.Suspended:
		working, failed = oca.PrologMigrateSuspend, oca.PrologMigrateSuspendFailure
		end = []phase{inState(oca.Suspended).with(copied)}
	case oca.Poweroff:
		working, failed = oca.PrologMigratePoweroff, oca.PrologMigratePoweroffFailure
		end = []phase{inState(oca.Poweroff).with(copied)}
	default:
		prev.action = oca.ActionMigrate
		working, failed = oca.PrologMigrateUnknown, oca.PrologMigrateUnknownFailure
		end = []phase{active(oca.Boot, d.Boot).with(func() { cur.petime, cur.rstime = s.unix(), s.unix() }),
			active(oca.Running, 0)}
	}
	if msg, ok := s.takeFail(v, OpMigrate); ok {
		s.run(v, []phase{active(working, d.Prolog), active(failed, 0)}, func() { s.setError(v, msg) })
		return
	}
	s.run(v, append([]phase{active(working, d.Prolog)}, end...), nil)
}
