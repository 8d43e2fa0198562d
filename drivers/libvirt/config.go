package libvirt

import "github.com/bora-sched/bora/drivers/libvirt/libvirtcfg"

// The driver's configuration: package libvirtcfg, which the
// configuration loader validates without importing the driver.
type (
	Config     = libvirtcfg.Config
	HostConfig = libvirtcfg.HostConfig
	Template   = libvirtcfg.Template
)

// Defaults of Config's fields (libvirtcfg's).
const (
	DefaultDomainType = libvirtcfg.DefaultDomainType
	DefaultOpTimeout  = libvirtcfg.DefaultOpTimeout
	DefaultCmdline    = libvirtcfg.DefaultCmdline
)
