package libvirtcfg

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ResolveImage is the base image file a VM with Image image gets an
// overlay of: "" for a diskless VM. The image is, in order:
//   - "": Template.BaseImage;
//   - a name of Template.Images: its path (the sysadmin's own);
//   - else a file of ImageDirs: a path relative to one of them (the first
//     that has it) or an absolute path inside one. A path with a ".."
//     element is refused, and so is one that resolves, symlinks followed
//     (filepath.EvalSymlinks), outside the resolved directory: a user must
//     not get a host file attached to a guest.
//
// The answer is the resolved path. Errors wrap ErrImageOutside for an
// image outside the directories and ErrUnknownImage for one found nowhere.
func (c Config) ResolveImage(image string) (string, error) {
	if image == "" {
		return c.Template.BaseImage, nil
	}
	if p, ok := c.Template.Images[image]; ok {
		return p, nil
	}
	if len(c.ImageDirs) == 0 {
		return "", fmt.Errorf("%w %q: template.images has no such entry and image_dirs is empty", ErrUnknownImage, image)
	}
	for _, el := range strings.Split(filepath.ToSlash(image), "/") {
		if el == ".." {
			return "", fmt.Errorf("%w: %q names a parent directory (..)", ErrImageOutside, image)
		}
	}
	inAny := false
	for _, dir := range c.ImageDirs {
		cand := image
		if filepath.IsAbs(image) {
			if !inside(dir, filepath.Clean(image)) {
				continue
			}
		} else {
			cand = filepath.Join(dir, image)
		}
		inAny = true
		p, err := resolveIn(dir, cand, image)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		return p, err
	}
	if filepath.IsAbs(image) && !inAny {
		return "", fmt.Errorf("%w: %q is not in %s", ErrImageOutside, image, strings.Join(c.ImageDirs, ", "))
	}
	return "", fmt.Errorf("%w %q: no such file in %s", ErrUnknownImage, image, strings.Join(c.ImageDirs, ", "))
}

// resolveIn resolves cand (image as found in dir) with its symlinks and
// checks that it is a regular file inside dir (resolved too). A missing
// file wraps fs.ErrNotExist.
func resolveIn(dir, cand, image string) (string, error) {
	p, err := filepath.EvalSymlinks(cand)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("%w %q: %v", ErrUnknownImage, image, err)
	}
	rdir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("%w %q: image directory %s: %v", ErrUnknownImage, image, dir, err)
	}
	if !inside(rdir, p) {
		return "", fmt.Errorf("%w: %q resolves to %s, outside %s", ErrImageOutside, image, p, dir)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("%w %q: %v", ErrUnknownImage, image, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%w %q: %s is not a regular file", ErrUnknownImage, image, p)
	}
	return p, nil
}

// inside reports whether the clean path p is strictly below dir.
func inside(dir, p string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
