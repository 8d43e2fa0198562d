package libvirt

import (
	"errors"

	"github.com/bora-sched/bora/drivers/libvirt/libvirtcfg"
)

// Errors of this package. The driver also returns the drivers package's
// sentinels (drivers.ErrUnknownHost, drivers.ErrNotSaved,
// drivers.ErrHostDown, drivers.ErrUnsupported), wrapped with the host and
// the VM in the message.
var (
	// ErrInvalidConfig is wrapped by every *fielderr.Error that
	// Config.Validate and New return (libvirtcfg.ErrInvalidConfig).
	ErrInvalidConfig = libvirtcfg.ErrInvalidConfig
	// ErrInvalidVM is returned for a VM the driver cannot build a domain
	// for (no memory, a name that ParseName rejects).
	ErrInvalidVM = errors.New("invalid VM")
	// ErrUnknownImage is returned by Start and ResolveImage for a VM whose
	// Image names no entry of Template.Images and no file of ImageDirs.
	ErrUnknownImage = libvirtcfg.ErrUnknownImage
	// ErrImageOutside is returned by ResolveImage (and so by Start) for an
	// image that names a parent directory (..) or resolves, symlinks
	// followed, outside the configured image directories.
	ErrImageOutside = libvirtcfg.ErrImageOutside
	// ErrNoDomain is returned by Suspend and LiveMigrate for a VM that is
	// neither running where it should be nor saved (or already moved).
	ErrNoDomain = errors.New("no such domain")
	// ErrBadLength is returned by Migrate and LiveMigrate when the host list
	// is not as long as the VM list.
	ErrBadLength = errors.New("host list and VM list differ in length")
	// ErrCalibration is returned by Calibrate when the test VM cannot be
	// measured (it did not boot, or a host is not reachable).
	ErrCalibration = errors.New("calibration failed")
)
