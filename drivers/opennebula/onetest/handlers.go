package onetest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

// vmFor finds the VM a call names and checks the caller may act on it
// (the owner or an admin).
func (s *Server) vmFor(c *call, id int, op string) (*vm, *oneErr) {
	v := s.vms[id]
	if v == nil {
		return nil, errNoExists(c.method, objVM, id)
	}
	if !c.user.admin && v.uid != c.user.id {
		return nil, &oneErr{oca.OneAuthorizationError,
			fmt.Sprintf("[%s] User [%d] : Not authorized to perform %s VM [%d].", c.method, c.user.id, op, id), -1}
	}
	return v, nil
}

func (s *Server) vmInfo(c *call) (interface{}, *oneErr, error) {
	id, err := c.p.int(1)
	if err != nil {
		return nil, nil, err
	}
	if _, err := c.p.optBool(2, false); err != nil {
		return nil, nil, err
	}
	v, oe := s.vmFor(c, id, "USE")
	if oe != nil {
		return nil, oe, nil
	}
	return s.renderVM(v, true), nil, nil
}

func (s *Server) vmAllocate(c *call) (interface{}, *oneErr, error) {
	text, err := c.p.str(1)
	if err != nil {
		return nil, nil, err
	}
	hold, err := c.p.optBool(2, false)
	if err != nil {
		return nil, nil, err
	}
	id, oe := s.allocate(c.user, text, hold)
	if oe != nil {
		return nil, oe, nil
	}
	return id, nil, nil
}

func (s *Server) vmDeploy(c *call) (interface{}, *oneErr, error) {
	id, err := c.p.int(1)
	if err != nil {
		return nil, nil, err
	}
	hid, err := c.p.int(2)
	if err != nil {
		return nil, nil, err
	}
	enforce, err := c.p.optBool(3, false)
	if err != nil {
		return nil, nil, err
	}
	ds, err := c.p.optInt(4, -1)
	if err != nil {
		return nil, nil, err
	}
	if !c.user.admin {
		return nil, notAdmin(c, "VM", id), nil
	}
	h, oe := s.hostFor(c.method, hid)
	if oe != nil {
		return nil, oe, nil
	}
	if ds != -1 {
		if _, ok := s.dss[ds]; !ok {
			return nil, errNoExists(c.method, objDS, ds), nil
		}
	} else {
		ds = 0
	}
	v, oe := s.vmFor(c, id, "ADMIN")
	if oe != nil {
		return nil, oe, nil
	}
	switch v.state {
	case oca.Pending, oca.Hold, oca.Stopped, oca.Undeployed:
	default:
		return nil, errAction(c.method, "Deploy action is not available for state "+v.stateStr()), nil
	}
	if enforce && !s.fits(h, v) {
		return nil, errAction(c.method, fmt.Sprintf(
			"Cannot deploy VM [%d] to host [%d]: not enough capacity.", v.id, h.id)), nil
	}
	s.openHistory(v, h, ds)
	s.startDeploy(v)
	return id, nil, nil
}

// unmodelled are actions oned knows that the stand-in does not act out.
var unmodelled = map[string]bool{
	"stop": true, "undeploy": true, "undeploy-hard": true, "reboot": true,
	"reboot-hard": true, "resched": true, "unresched": true,
}

func (s *Server) vmAction(c *call) (interface{}, *oneErr, error) {
	action, err := c.p.str(1)
	if err != nil {
		return nil, nil, err
	}
	id, err := c.p.int(2)
	if err != nil {
		return nil, nil, err
	}
	v, oe := s.vmFor(c, id, "MANAGE")
	if oe != nil {
		return nil, oe, nil
	}
	if unmodelled[action] {
		return nil, errCode(c.method, oca.OneInternalError,
			fmt.Sprintf("the oned stand-in does not model action %q", action)), nil
	}
	text, ok := s.action(v, action)
	if !ok {
		return nil, errAction(c.method, fmt.Sprintf("Action %q is not supported", action)), nil
	}
	if text != "" {
		return nil, errAction(c.method, fmt.Sprintf("Error performing action %q: %s", action, text)), nil
	}
	return id, nil, nil
}

func (s *Server) vmMigrate(c *call) (interface{}, *oneErr, error) {
	id, err := c.p.int(1)
	if err != nil {
		return nil, nil, err
	}
	hid, err := c.p.int(2)
	if err != nil {
		return nil, nil, err
	}
	live, err := c.p.optBool(3, false)
	if err != nil {
		return nil, nil, err
	}
	enforce, err := c.p.optBool(4, false)
	if err != nil {
		return nil, nil, err
	}
	ds, err := c.p.optInt(5, -1)
	if err != nil {
		return nil, nil, err
	}
	mtype, err := c.p.optInt(6, oca.MigrateSave)
	if err != nil {
		return nil, nil, err
	}
	if !c.user.admin {
		return nil, notAdmin(c, "VM", id), nil
	}
	h, oe := s.hostFor(c.method, hid)
	if oe != nil {
		return nil, oe, nil
	}
	v, oe := s.vmFor(c, id, "ADMIN")
	if oe != nil {
		return nil, oe, nil
	}
	ok := v.state == oca.Poweroff || v.state == oca.Suspended ||
		(v.state == oca.Active && (v.lcm == oca.Running || v.lcm == oca.Unknown))
	if !ok || v.last() == nil {
		return nil, errAction(c.method, "Migrate action is not available for state "+v.stateStr()), nil
	}
	cur := v.last()
	if ds == -1 {
		ds = cur.ds
	} else if _, ok := s.dss[ds]; !ok {
		return nil, errNoExists(c.method, objDS, ds), nil
	}
	if cur.hid == hid && ds == cur.ds {
		return nil, errAction(c.method, fmt.Sprintf("VM is already running on host [%d] and datastore [%d]", cur.hid, cur.ds)), nil
	}
	if mtype < oca.MigrateSave || mtype > oca.MigratePoweroffHard {
		return nil, errCode(c.method, oca.OneXMLRPCAPIError, fmt.Sprintf("Wrong migration type %d", mtype)), nil
	}
	if enforce && !s.fits(h, v) {
		return nil, errAction(c.method, fmt.Sprintf(
			"Cannot migrate VM [%d] to host [%d]: not enough capacity.", v.id, h.id)), nil
	}
	s.openHistory(v, h, ds)
	s.startMigrate(v, live, mtype)
	return id, nil, nil
}

func (s *Server) vmUpdate(c *call) (interface{}, *oneErr, error) {
	id, err := c.p.int(1)
	if err != nil {
		return nil, nil, err
	}
	text, err := c.p.str(2)
	if err != nil {
		return nil, nil, err
	}
	utype, err := c.p.optInt(3, int(oca.Replace))
	if err != nil {
		return nil, nil, err
	}
	v, oe := s.vmFor(c, id, "MANAGE")
	if oe != nil {
		return nil, oe, nil
	}
	if utype != int(oca.Replace) && utype != int(oca.Merge) {
		return nil, errCode(c.method, oca.OneXMLRPCAPIError, "Wrong update type"), nil
	}
	t, perr := oca.ParseTemplate(text)
	if perr != nil {
		return nil, errCode(c.method, oca.OneInternalError, perr.Error()), nil
	}
	if utype == int(oca.Replace) {
		v.user = t
	} else {
		v.user.Merge(t)
	}
	return id, nil, nil
}

func (s *Server) vmPoolInfo(c *call) (interface{}, *oneErr, error) {
	return s.vmPool(c, false)
}

func (s *Server) vmPoolInfoExtended(c *call) (interface{}, *oneErr, error) {
	return s.vmPool(c, true)
}

func (s *Server) vmPool(c *call, extended bool) (interface{}, *oneErr, error) {
	var f [4]int
	for i := range f {
		n, err := c.p.int(i + 1)
		if err != nil {
			return nil, nil, err
		}
		f[i] = n
	}
	who, start, end, state := f[0], f[1], f[2], f[3]
	filter := ""
	if len(c.p) > 5 {
		str, err := c.p.str(5)
		if err != nil {
			return nil, nil, err
		}
		filter = str
	}
	if who < oca.PoolWhoPrimaryGroup {
		return nil, errCode(c.method, oca.OneXMLRPCAPIError, "Incorrect filter_flag, must be >= -4."), nil
	}
	if state < oca.PoolStateAny || state > int(oca.CloningFailure) {
		return nil, errCode(c.method, oca.OneXMLRPCAPIError, "Incorrect filter_flag for state"), nil
	}
	fkey, fval, hasFilter := strings.Cut(filter, "=")
	var b strings.Builder
	b.WriteString("<VM_POOL>")
	ids := s.vmIDs()
	sort.Sort(sort.Reverse(sort.IntSlice(ids))) // oned lists newest first
	for _, id := range ids {
		v := s.vms[id]
		if !s.visible(c.user, v, who) || !inRange(id, start, end) {
			continue
		}
		switch {
		case state == oca.PoolStateAny:
		case state == oca.PoolStateNotDone && v.state == oca.Done:
			continue
		case state >= 0 && int(v.state) != state:
			continue
		}
		if hasFilter && filter != "" {
			got, ok := v.user.Get(fkey)
			if !ok {
				got, ok = v.tmpl.Get(fkey)
			}
			if !ok || got != fval {
				continue
			}
		}
		b.WriteString(s.renderVM(v, extended))
	}
	b.WriteString("</VM_POOL>")
	return b.String(), nil, nil
}

func (s *Server) visible(u *user, v *vm, who int) bool {
	if !u.admin {
		return v.uid == u.id
	}
	switch {
	case who == oca.PoolWhoAll:
		return true
	case who == oca.PoolWhoMine:
		return v.uid == u.id
	case who == oca.PoolWhoGroup, who == oca.PoolWhoPrimaryGroup:
		return v.uid == u.id || v.gid == u.gid
	default:
		return v.uid == who
	}
}

func inRange(id, start, end int) bool {
	switch {
	case start < 0 && end < 0:
		return true
	case end < 0:
		return id >= start
	default:
		return id >= start && id <= end
	}
}

func (s *Server) vmIDs() []int {
	ids := make([]int, 0, len(s.vms))
	for id := range s.vms {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}
