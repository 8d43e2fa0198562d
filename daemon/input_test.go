package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/fielderr"
)

// TestHostileInput: names and free text with control characters, too long
// or not UTF-8, images that name a parent directory and durations below
// the scheduler's resolution of a second are refused with an error naming
// the field; nothing reaches the store.
func TestHostileInput(t *testing.T) {
	d := start(t, testConfig(t.TempDir(), 1))
	ctx := context.Background()
	before, _, _ := d.store.Counts()
	req := func(f func(*api.LeaseRequest)) api.LeaseRequest {
		r := api.LeaseRequest{VMs: 1, Duration: "1h"}
		f(&r)
		return r
	}
	cases := []struct {
		name  string
		req   api.LeaseRequest
		field string
		msg   string
	}{
		{"escape sequence and newline", req(func(r *api.LeaseRequest) { r.Name = "a\x1b[31mred\nfake-row" }), "name", "U+001B at byte 1"},
		{"tab", req(func(r *api.LeaseRequest) { r.Name = "a\tb" }), "name", "U+0009"},
		{"DEL", req(func(r *api.LeaseRequest) { r.Name = "a\x7f" }), "name", "U+007F"},
		{"C1 control", req(func(r *api.LeaseRequest) { r.Name = "a\u009bb" }), "name", "U+009B"},
		{"bidi override", req(func(r *api.LeaseRequest) { r.Name = "abc\u202edcba" }), "name", "U+202E"},
		// 257 bytes: one more than the cap of 256.
		{"name too long", req(func(r *api.LeaseRequest) { r.Name = strings.Repeat("x", 257) }), "name", "257 bytes long: at most 256"},
		{"invalid UTF-8", req(func(r *api.LeaseRequest) { r.Name = "caf\xe9" }), "name", "not valid UTF-8"},
		{"control in the image", req(func(r *api.LeaseRequest) { r.Image = "deb\nian" }), "image", "U+000A"},
		{"image out of the tree", req(func(r *api.LeaseRequest) { r.Image = "../../../../etc/shadow" }), "image", "parent directory"},
		{"image with .. inside", req(func(r *api.LeaseRequest) { r.Image = "a/../../b" }), "image", "parent directory"},
		{"1ns", req(func(r *api.LeaseRequest) { r.Duration = "1ns" }), "duration", "below the scheduler's resolution of 1s"},
		{"999ms", req(func(r *api.LeaseRequest) { r.Duration = "999ms" }), "duration", "below the scheduler's resolution"},
		{"1.5s", req(func(r *api.LeaseRequest) { r.Duration = "1.5s" }), "duration", "fraction of a second"},
		{"real duration 1ns", req(func(r *api.LeaseRequest) { r.RealDuration = "1ns" }), "real_duration", "resolution"},
		{"start offset 1ns", req(func(r *api.LeaseRequest) { r.Start = "+1ns" }), "start", "resolution"},
		{"not_before 1m0.5s", req(func(r *api.LeaseRequest) { r.NotBefore = "+1m0.5s" }), "not_before", "fraction of a second"},
		{"deadline 1ms", req(func(r *api.LeaseRequest) { r.Deadline = "+1ms" }), "deadline", "resolution"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.CreateLease(ctx, alice, tc.req)
			var fe *fielderr.Error
			if !errors.As(err, &fe) || fe.Path != tc.field || !strings.Contains(fe.Msg, tc.msg) {
				t.Fatalf("got %v, want an error on field %q saying %q", err, tc.field, tc.msg)
			}
		})
	}
	if after, _, _ := d.store.Counts(); after != before {
		t.Fatalf("refused requests changed the store: %d leases before, %d after", before, after)
	}
	// What is fine: 256 bytes, accents and emoji, a whole-second duration.
	for _, r := range []api.LeaseRequest{
		{VMs: 1, Duration: "1s", Name: strings.Repeat("é", 128)},
		{VMs: 1, Duration: "01:00:01", Name: "café ☕ 東京", Image: "debian/12.qcow2"},
	} {
		if l, err := d.CreateLease(ctx, alice, r); err != nil || l.Name != r.Name {
			t.Fatalf("%+v: %v (name %q)", r, err, l.Name)
		}
	}
}

// TestTimesInMessages: a start before the arrival is refused with both
// times written as times (the simulated clock starts at 2030-01-01 00:00
// UTC), and a preemption's history says when the suspension is, as a time.
func TestTimesInMessages(t *testing.T) {
	d := start(t, testConfig(t.TempDir(), 1))
	ctx := context.Background()
	_, err := d.CreateLease(ctx, alice, api.LeaseRequest{VMs: 1, Duration: "1h", Start: "2029-12-31T23:00:00Z"})
	var fe *fielderr.Error
	if !errors.As(err, &fe) || fe.Path != "start" ||
		!strings.Contains(fe.Msg, "must start at or after its arrival (2029-12-31 23:00:00 UTC < 2030-01-01 00:") {
		t.Fatalf("past start: %v", err)
	}
	// A 1-hour external lease runs from about 00:00; a local advance
	// reservation at 00:30 suspends it from 00:30 - 163.311 s = 00:27:16.
	be, err := d.CreateLease(ctx, admin, api.LeaseRequest{VMs: 1, Duration: "1h", Origin: "external"})
	if err != nil {
		t.Fatal(err)
	}
	ar := simStart.Add(30 * time.Minute).Format(time.RFC3339)
	if _, err := d.CreateLease(ctx, admin, api.LeaseRequest{VMs: 1, Duration: "10m", Start: ar}); err != nil {
		t.Fatal(err)
	}
	l := waitFor(t, d, be.ID, "preempted", func(l api.Lease) bool { return l.Preemptions > 0 })
	var detail string
	for _, e := range l.History {
		if e.Reason == "preempted" {
			detail = e.Detail
		}
	}
	if !strings.HasPrefix(detail, "suspend at 2030-01-01 00:27:16 UTC by lease 2") {
		t.Fatalf("history detail %q, want it to start with suspend at 2030-01-01 00:27:16 UTC by lease 2", detail)
	}
}

// TestImageRefusedAtSubmission: with the libvirt driver, the daemon
// refuses an image that resolves outside driver.libvirt.image_dirs before
// the lease is planned, and says why.
func TestImageRefusedAtSubmission(t *testing.T) {
	root := t.TempDir()
	images := filepath.Join(root, "images")
	if err := os.Mkdir(images, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(images, "ok.qcow2"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(images, "passwd.qcow2")); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Driver.Name = "libvirt"
	cfg.Driver.Libvirt.ImageDirs = []string{images}
	d := &Daemon{cfg: cfg}
	cases := []struct {
		image, want string // want: part of the message; "" = accepted
	}{
		{"ok.qcow2", ""},
		{"", ""},
		{"passwd.qcow2", "outside " + images},
		{"/etc/shadow", "image outside the image directories"},
		{"missing.qcow2", "no such file"},
	}
	for _, tc := range cases {
		err := d.checkImage(tc.image)
		var fe *fielderr.Error
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("image %q: %v, want it accepted", tc.image, err)
		case tc.want != "" && (!errors.As(err, &fe) || fe.Path != "image" || !strings.Contains(fe.Msg, tc.want)):
			t.Errorf("image %q: %v, want an image error saying %q", tc.image, err, tc.want)
		}
	}
}
