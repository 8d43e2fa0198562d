package onetest

import (
	"fmt"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

type host struct {
	id    int
	name  string
	state oca.HostState
	prev  oca.HostState
	cpu   int64 // hundredths of a core, once monitored
	memKB int64
	trail []oca.HostState
	gen   int
	// monitored: the host's capacity is known. A new host reports 0
	// until its first monitoring, and Host::offline zeroes it (a host
	// enabled again from OFFLINE reports 0 until monitored again).
	monitored bool
}

func (s *Server) setHost(h *host, st oca.HostState) {
	if h.state == st {
		return
	}
	h.prev, h.state = h.state, st
	h.trail = append(h.trail, st)
	switch st {
	case oca.HostMonitored:
		h.monitored = true
	case oca.HostOffline:
		h.monitored = false
	}
}

// capacity is what the host document shows: TOTAL and MAX CPU (hundredths
// of a core) and memory (KB), 0 while the host is not monitored yet or
// OFFLINE.
func (h *host) capacity() (cpu, memKB int64) {
	if !h.monitored {
		return 0, 0
	}
	return h.cpu, h.memKB
}

// usage is what the VMs placed on h allocate: CPU in hundredths, memory
// in KB, and how many there are.
func (s *Server) usage(h *host) (cpu, memKB int64, vms []int) {
	for _, id := range s.vmIDs() {
		v := s.vms[id]
		if v.hostID() == h.id {
			cpu += int64(v.cpu*100 + 0.5)
			memKB += v.mem * 1024
			vms = append(vms, v.id)
		}
	}
	return cpu, memKB, vms
}

// fits is HostShare::test_capacity for one more VM.
func (s *Server) fits(h *host, v *vm) bool {
	cpu, mem, _ := s.usage(h)
	maxCPU, maxMem := h.capacity()
	return cpu+int64(v.cpu*100+0.5) <= maxCPU && mem+v.mem*1024 <= maxMem
}

// hostFor is get_host_information: the host must exist and not be
// OFFLINE.
func (s *Server) hostFor(method string, hid int) (*host, *oneErr) {
	h := s.hosts[hid]
	if h == nil {
		return nil, errNoExists(method, objHost, hid)
	}
	if h.state == oca.HostOffline {
		return nil, errAction(method, "Host is offline, cannot use it to deploy VM")
	}
	return h, nil
}

func (s *Server) hostPoolInfo(c *call) (interface{}, *oneErr, error) {
	return s.renderHostPool(), nil, nil
}

func (s *Server) hostInfo(c *call) (interface{}, *oneErr, error) {
	id, err := c.p.int(1)
	if err != nil {
		return nil, nil, err
	}
	if _, err := c.p.optBool(2, false); err != nil {
		return nil, nil, err
	}
	h := s.hosts[id]
	if h == nil {
		return nil, errNoExists(c.method, objHost, id), nil
	}
	return s.renderHost(h), nil, nil
}

func (s *Server) hostStatus(c *call) (interface{}, *oneErr, error) {
	id, err := c.p.int(1)
	if err != nil {
		return nil, nil, err
	}
	status, err := c.p.int(2)
	if err != nil {
		return nil, nil, err
	}
	if !c.user.admin {
		return nil, &oneErr{oca.OneAuthorizationError,
			fmt.Sprintf("[%s] User [%d] : Not authorized to perform ADMIN HOST [%d].", c.method, c.user.id, id), -1}, nil
	}
	h := s.hosts[id]
	if h == nil {
		return nil, errNoExists(c.method, objHost, id), nil
	}
	switch status {
	case oca.HostStatusEnabled:
		// Enabling (re)starts monitoring: INIT, then MONITORED once the
		// first probe answers.
		s.setHost(h, oca.HostInit)
		h.gen++
		gen := h.gen
		s.after(s.delays.Monitor, func() {
			if h.gen == gen && h.state == oca.HostInit {
				s.setHost(h, oca.HostMonitored)
			}
		})
	case oca.HostStatusDisabled:
		h.gen++
		s.setHost(h, oca.HostDisabled)
	case oca.HostStatusOffline:
		h.gen++
		s.setHost(h, oca.HostOffline)
	default:
		return nil, errCode(c.method, oca.OneInternalError, "Wrong status code"), nil
	}
	return id, nil, nil
}
