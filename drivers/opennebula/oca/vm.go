package oca

import (
	"encoding/xml"
	"strconv"
)

// VMPool is a VM_POOL document (one.vmpool.info, one.vmpool.infoextended).
type VMPool struct {
	XMLName xml.Name `xml:"VM_POOL"`
	VMs     []VM     `xml:"VM"`
}

// VM is a VM document, following OpenNebula's vm.xsd (the fields bora
// reads).
type VM struct {
	XMLName     xml.Name `xml:"VM"`
	ID          int      `xml:"ID"`
	UID         int      `xml:"UID"`
	GID         int      `xml:"GID"`
	UName       string   `xml:"UNAME"`
	GName       string   `xml:"GNAME"`
	Name        string   `xml:"NAME"`
	LastPoll    int64    `xml:"LAST_POLL"`
	StateRaw    int      `xml:"STATE"`
	LCMStateRaw int      `xml:"LCM_STATE"`
	// PREV_STATE and PREV_LCM_STATE always equal STATE and LCM_STATE in
	// a document: VirtualMachinePool::update copies them before each
	// save. They do not tell where a VM came from; its history does.
	PrevStateRaw    int             `xml:"PREV_STATE"`
	PrevLCMStateRaw int             `xml:"PREV_LCM_STATE"`
	ReschedValue    int             `xml:"RESCHED"`
	STime           int64           `xml:"STIME"`
	ETime           int64           `xml:"ETIME"`
	DeployID        string          `xml:"DEPLOY_ID"`
	Template        Template        `xml:"TEMPLATE"`
	UserTemplate    Template        `xml:"USER_TEMPLATE"`
	HistoryRecords  []HistoryRecord `xml:"HISTORY_RECORDS>HISTORY"`
}

// HistoryRecord is one placement of a VM (a HISTORY element): each
// deploy and migration opens one.
type HistoryRecord struct {
	OID      int    `xml:"OID"`
	SEQ      int    `xml:"SEQ"`
	Hostname string `xml:"HOSTNAME"`
	HID      int    `xml:"HID"`
	CID      int    `xml:"CID"`
	STime    int64  `xml:"STIME"`
	ETime    int64  `xml:"ETIME"`
	VMMad    string `xml:"VM_MAD"`
	TMMad    string `xml:"TM_MAD"`
	DSID     int    `xml:"DS_ID"`
	PSTime   int64  `xml:"PSTIME"`
	PETime   int64  `xml:"PETIME"`
	RSTime   int64  `xml:"RSTIME"`
	RETime   int64  `xml:"RETIME"`
	ESTime   int64  `xml:"ESTIME"`
	EETime   int64  `xml:"EETIME"`
	Action   int    `xml:"ACTION"`
	UID      int    `xml:"UID"`
	GID      int    `xml:"GID"`
}

// State returns the VM's state and LCM state.
func (vm *VM) State() (State, LCMState) { return State(vm.StateRaw), LCMState(vm.LCMStateRaw) }

// StateString is "STATE" or, for an ACTIVE VM, "ACTIVE/LCM_STATE".
func (vm *VM) StateString() string {
	s, l := vm.State()
	if s == Active {
		return s.String() + "/" + l.String()
	}
	return s.String()
}

// LastHistory is the VM's current placement (the last history record),
// or false when it was never deployed.
func (vm *VM) LastHistory() (HistoryRecord, bool) {
	if len(vm.HistoryRecords) == 0 {
		return HistoryRecord{}, false
	}
	return vm.HistoryRecords[len(vm.HistoryRecords)-1], true
}

// Hostname is the host of the current placement ("" if none).
func (vm *VM) Hostname() string {
	h, _ := vm.LastHistory()
	return h.Hostname
}

// CPU is the TEMPLATE's CPU (cores, fractional), 0 if unset.
func (vm *VM) CPU() float64 {
	v, _ := vm.Template.Get("CPU")
	f, _ := strconv.ParseFloat(v, 64)
	return f
}

// Memory is the TEMPLATE's MEMORY in MB, 0 if unset.
func (vm *VM) Memory() int64 {
	v, _ := vm.Template.Get("MEMORY")
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// Attr looks a single attribute up in USER_TEMPLATE, then in TEMPLATE.
func (vm *VM) Attr(key string) (string, bool) {
	if v, ok := vm.UserTemplate.Get(key); ok {
		return v, true
	}
	return vm.Template.Get(key)
}
