package libvirt

import (
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bora-sched/bora/drivers"
)

// imageTree makes root/images (the image directory) with good.qcow2,
// sub/deb.qcow2, a symlink in.qcow2 -> good.qcow2, a symlink
// evil.qcow2 -> root/secret (outside), and root/link, a symlink to the
// image directory.
func imageTree(t *testing.T) (root, images string) {
	t.Helper()
	root = t.TempDir()
	images = filepath.Join(root, "images")
	for _, dir := range []string{images, filepath.Join(images, "sub")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(images, "good.qcow2"), filepath.Join(images, "sub", "deb.qcow2"), filepath.Join(root, "secret")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		filepath.Join(images, "in.qcow2"):   "good.qcow2",
		filepath.Join(images, "evil.qcow2"): filepath.Join(root, "secret"),
		filepath.Join(root, "link"):         images,
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return root, images
}

// TestImageInsideImageDirs: a user's image resolves inside the image
// directory or is refused; a good one is the overlay's backing store in
// the domain XML.
func TestImageInsideImageDirs(t *testing.T) {
	root, images := imageTree(t)
	goodImg := filepath.Join(images, "good.qcow2")
	cases := []struct {
		name    string
		dirs    []string
		image   string
		want    string // the backing store in the XML
		wantErr error
	}{
		{"relative", []string{images}, "good.qcow2", goodImg, nil},
		{"in a subdirectory", []string{images}, "sub/deb.qcow2", filepath.Join(images, "sub", "deb.qcow2"), nil},
		{"absolute inside", []string{images}, goodImg, goodImg, nil},
		// in.qcow2 -> good.qcow2: the resolved path is the target.
		{"symlink inside", []string{images}, "in.qcow2", goodImg, nil},
		// The directory is named through a symlink: resolved on both sides.
		{"image dir is a symlink", []string{filepath.Join(root, "link")}, "good.qcow2", goodImg, nil},
		{"template entry still wins", []string{images}, "debian", "/s/debian.qcow2", nil},
		{"parent directory", []string{images}, "../secret", "", ErrImageOutside},
		{"the issue's path", []string{images}, "../../../../etc/shadow", "", ErrImageOutside},
		{"dot-dot inside the path", []string{images}, "sub/../good.qcow2", "", ErrImageOutside},
		{"symlink pointing outside", []string{images}, "evil.qcow2", "", ErrImageOutside},
		{"absolute outside", []string{images}, "/etc/shadow", "", ErrImageOutside},
		{"the directory itself", []string{images}, images, "", ErrImageOutside},
		{"missing", []string{images}, "nope.qcow2", "", ErrUnknownImage},
		{"a directory", []string{images}, "sub", "", ErrUnknownImage},
		{"no image dirs", nil, "good.qcow2", "", ErrUnknownImage},
		{"no image dirs, parent", nil, "../../../../etc/shadow", "", ErrUnknownImage},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := good()
			c.Template.Images = map[string]string{"debian": "/s/debian.qcow2"}
			c.ImageDirs = tc.dirs
			out, err := DomainXML(c.WithDefaults(), drivers.VM{Lease: 4, CPU: 100, Memory: 128, Image: tc.image})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("DomainXML: %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var d domainXML
			if err := xml.Unmarshal([]byte(out), &d); err != nil {
				t.Fatal(err)
			}
			if len(d.Devices.Disks) != 1 || d.Devices.Disks[0].BackingStore == nil {
				t.Fatalf("disks %+v, want one overlay with a backing store\n%s", d.Devices.Disks, out)
			}
			disk := d.Devices.Disks[0]
			if disk.Source.File != "/s/bora-4-0.qcow2" || disk.BackingStore.Source.File != tc.want || disk.BackingStore.Format.Type != "qcow2" {
				t.Errorf("disk %s backed by %s (%s), want /s/bora-4-0.qcow2 backed by %s (qcow2)",
					disk.Source.File, disk.BackingStore.Source.File, disk.BackingStore.Format.Type, tc.want)
			}
		})
	}
}
