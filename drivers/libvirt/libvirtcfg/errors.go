package libvirtcfg

import "errors"

// Errors of this package; package libvirt returns them too.
var (
	// ErrInvalidConfig is wrapped by every *fielderr.Error that
	// Config.Validate returns.
	ErrInvalidConfig = errors.New("invalid libvirt driver configuration")
	// ErrUnknownImage is returned by ResolveImage for an image that names
	// no entry of Template.Images and no file of ImageDirs.
	ErrUnknownImage = errors.New("unknown image")
	// ErrImageOutside is returned by ResolveImage for an image that names
	// a parent directory (..) or resolves, symlinks followed, outside the
	// configured image directories.
	ErrImageOutside = errors.New("image outside the image directories")
)
