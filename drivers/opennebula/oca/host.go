package oca

import "encoding/xml"

// HostPool is a HOST_POOL document (one.hostpool.info).
type HostPool struct {
	XMLName xml.Name `xml:"HOST_POOL"`
	Hosts   []Host   `xml:"HOST"`
}

// Host is a HOST document, following OpenNebula's host.xsd (the fields
// bora reads).
type Host struct {
	XMLName   xml.Name `xml:"HOST"`
	ID        int      `xml:"ID"`
	Name      string   `xml:"NAME"`
	StateRaw  int      `xml:"STATE"`
	PrevState int      `xml:"PREV_STATE"`
	IMMAD     string   `xml:"IM_MAD"`
	VMMAD     string   `xml:"VM_MAD"`
	ClusterID int      `xml:"CLUSTER_ID"`
	Cluster   string   `xml:"CLUSTER"`
	Share     Share    `xml:"HOST_SHARE"`
	VMs       []int    `xml:"VMS>ID"`
	Template  Template `xml:"TEMPLATE"`
}

// Share is a host's capacity (HOST_SHARE). CPU is in hundredths of a
// core (100 = one core), memory in KB. MAX_* is what can be allocated
// (TOTAL_* less reserved), *_USAGE what the VMs placed there allocate.
// TOTAL_* and MAX_* are 0 until the host's first monitoring, and while it
// is OFFLINE (Host::offline zeroes them).
type Share struct {
	MemUsage   int64 `xml:"MEM_USAGE"`
	CPUUsage   int64 `xml:"CPU_USAGE"`
	TotalMem   int64 `xml:"TOTAL_MEM"`
	TotalCPU   int64 `xml:"TOTAL_CPU"`
	MaxMem     int64 `xml:"MAX_MEM"`
	MaxCPU     int64 `xml:"MAX_CPU"`
	RunningVMs int   `xml:"RUNNING_VMS"`
}

// State returns the host's state.
func (h *Host) State() HostState { return HostState(h.StateRaw) }
