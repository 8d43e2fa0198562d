package daemon

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/drivers/libvirt"
)

// Checks of what users type: free text (names, images) and durations. The
// API refuses bad input with a 400 naming the field; nothing is stored as
// sent if it could fool a terminal or reach a host file.

const (
	// maxNameBytes caps a lease's name.
	maxNameBytes = 256
	// maxTextBytes caps the other strings of a request (image, times).
	maxTextBytes = 1024
	// resolution is the scheduler's: durations are whole seconds.
	resolution = time.Second
)

// checkText refuses s in field when it is longer than max bytes, is not
// valid UTF-8, or holds a control character (C0, DEL, C1) or a
// bidirectional override, which could colour a terminal, fake a table row
// or reorder what a reader sees.
func checkText(field, s string, max int) error {
	if len(s) > max {
		return fieldErr(field, "%d bytes long: at most %d", len(s), max)
	}
	if !utf8.ValidString(s) {
		return fieldErr(field, "not valid UTF-8: %q", s)
	}
	for i, r := range s {
		if api.Unprintable(r) {
			return fieldErr(field, "character %U at byte %d is not printable (a control or bidirectional character): %q", r, i, s)
		}
	}
	return nil
}

// checkTexts checks every string of a lease request.
func checkTexts(r api.LeaseRequest) error {
	if err := checkText("name", r.Name, maxNameBytes); err != nil {
		return err
	}
	for _, f := range []struct{ field, v string }{{"image", r.Image}, {"start", r.Start}, {"not_before", r.NotBefore},
		{"duration", r.Duration}, {"deadline", r.Deadline}, {"class", r.Class}, {"origin", r.Origin},
		{"real_duration", r.RealDuration}} {
		if err := checkText(f.field, f.v, maxTextBytes); err != nil {
			return err
		}
	}
	return checkImageName(r.Image)
}

// checkImageName refuses, for every driver, an image that names a parent
// directory: an image is a name or a path inside the images the driver
// offers, never a way out of them.
func checkImageName(image string) error {
	for _, el := range strings.Split(strings.ReplaceAll(image, `\`, "/"), "/") {
		if el == ".." {
			return fieldErr("image", "%q names a parent directory (..): give an image name or a path inside the image directories", image)
		}
	}
	return nil
}

// checkImage refuses an image the driver would not find, where the daemon
// knows the driver's images: with libvirt, it must be a template image or
// resolve inside driver.libvirt.image_dirs (the driver checks again before
// it builds the domain).
func (d *Daemon) checkImage(image string) error {
	if d.cfg.Driver.Name != "libvirt" {
		return nil
	}
	_, err := d.cfg.Driver.Libvirt.ResolveImage(image)
	switch {
	case errors.Is(err, libvirt.ErrImageOutside):
		return fieldErr("image", "%v: a lease may only use the images of driver.libvirt.image_dirs", err)
	case err != nil:
		return fieldErr("image", "%v", err)
	}
	return nil
}

// checkResolution refuses a duration below the scheduler's resolution of a
// second, or with a fraction of a second: the scheduler counts whole
// seconds, and rounding silently would change what was asked.
func checkResolution(field, v string, d time.Duration) error {
	switch {
	case d > 0 && d < resolution:
		return fieldErr(field, "%q is below the scheduler's resolution of 1s", v)
	case d%resolution != 0:
		return fieldErr(field, "%q has a fraction of a second: the scheduler counts whole seconds (e.g. 90s, 2h)", v)
	}
	return nil
}
