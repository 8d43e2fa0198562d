package libvirt

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/fielderr"
)

// good is a valid two-host configuration; cases change one thing in it.
func good() Config {
	return Config{
		Hosts: []HostConfig{
			{Name: "a", URI: "qemu+tcp://10.0.0.1/system", MigrationURI: "tcp://10.0.0.1"},
			{Name: "b", URI: "qemu+ssh://root@10.0.0.2/system?keyfile=/k", MigrationURI: "tcp://10.0.0.2"},
		},
		Template:  Template{Kernel: "/s/vmlinuz", Initrd: "/s/initrd.img", BaseImage: "/s/base.qcow2"},
		SharedDir: "/s",
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Config)
		want   []string // field paths in the error; none: valid
	}{
		{"good", func(*Config) {}, nil},
		{"unix socket, one host", func(c *Config) {
			c.Hosts = []HostConfig{{Name: "a", URI: "qemu:///system?socket=/run/libvirt/libvirt-sock"}}
		}, nil},
		{"tls and libssh", func(c *Config) {
			c.Hosts[0].URI, c.Hosts[1].URI = "qemu+tls://h1/system?pkipath=/p", "qemu+libssh://h2/system"
		}, nil},
		{"kernel only", func(c *Config) { c.Template.BaseImage = "" }, nil},
		{"image only", func(c *Config) { c.Template = Template{BaseImage: "/s/b.qcow2"} }, nil},
		{"image dirs", func(c *Config) { c.ImageDirs = []string{"/srv/images", "/s/more"} }, nil},
		{"relative image dir", func(c *Config) { c.ImageDirs = []string{"/srv/images", "images"} }, []string{"image_dirs[1]"}},
		{"no hosts", func(c *Config) { c.Hosts = nil }, []string{"hosts:"}},
		{"host without name", func(c *Config) { c.Hosts[1].Name = "" }, []string{"hosts[1].name"}},
		{"duplicate name", func(c *Config) { c.Hosts[1].Name = "a" }, []string{"hosts[1].name"}},
		{"no uri", func(c *Config) { c.Hosts[0].URI = "" }, []string{"hosts[0].uri"}},
		{"xen", func(c *Config) { c.Hosts[0].URI = "xen:///system" }, []string{"hosts[0].uri"}},
		{"bad transport", func(c *Config) { c.Hosts[0].URI = "qemu+http://h/system" }, []string{"hosts[0].uri"}},
		{"bad path", func(c *Config) { c.Hosts[0].URI = "qemu+tcp://h/" }, []string{"hosts[0].uri"}},
		{"tcp without host", func(c *Config) { c.Hosts[0].URI = "qemu+tcp:///system" }, []string{"hosts[0].uri"}},
		// Two hosts, live migration: a local URI needs a peer URI...
		{"local uri, live", func(c *Config) { c.Hosts[0].URI = "qemu:///system" }, []string{"hosts[0].peer_uri"}},
		// ...but not with cold migration.
		{"local uri, cold", func(c *Config) { c.Hosts[0].URI = "qemu:///system"; c.Migration = "cold" }, nil},
		{"local uri, peer", func(c *Config) {
			c.Hosts[0].URI, c.Hosts[0].PeerURI = "qemu:///system", "qemu+tcp://10.0.0.1/system"
		}, nil},
		{"bad migration uri", func(c *Config) { c.Hosts[1].MigrationURI = "10.0.0.2" }, []string{"hosts[1].migration_uri"}},
		{"negative capacity", func(c *Config) { c.Hosts[0].CPU, c.Hosts[1].Memory = -1, -5 }, []string{"hosts[0].cpu", "hosts[1].memory"}},
		{"domain type", func(c *Config) { c.DomainType = "xen" }, []string{"domain_type"}},
		{"migration", func(c *Config) { c.Migration = "warp" }, []string{"migration"}},
		{"no shared dir", func(c *Config) { c.SharedDir = "" }, []string{"shared_dir"}},
		{"relative shared dir", func(c *Config) { c.SharedDir = "shared" }, []string{"shared_dir"}},
		{"no template", func(c *Config) { c.Template = Template{} }, []string{"template:"}},
		{"initrd without kernel", func(c *Config) { c.Template.Kernel = "" }, []string{"template.initrd"}},
		{"relative kernel", func(c *Config) { c.Template.Kernel = "vmlinuz" }, []string{"template.kernel"}},
		{"relative image", func(c *Config) { c.Template.Images = map[string]string{"deb": "deb.qcow2"} }, []string{"template.images.deb"}},
		{"cache", func(c *Config) { c.Template.DiskCache = "fast" }, []string{"template.disk_cache"}},
		{"backoff", func(c *Config) { c.ReconnectMin = time.Minute }, []string{"reconnect_min"}},
		{"negative timeout", func(c *Config) { c.OpTimeout = -time.Second }, []string{"op_timeout"}},
		{"several at once", func(c *Config) { c.SharedDir, c.DomainType = "", "lxc" }, []string{"shared_dir", "domain_type"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := good()
			tc.change(&c)
			err := c.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate: nil, want errors at %v", tc.want)
			}
			if !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("error does not wrap ErrInvalidConfig: %v", err)
			}
			var fe *fielderr.Error
			if !errors.As(err, &fe) {
				t.Errorf("error is not a *fielderr.Error: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			if n := strings.Count(err.Error(), "\n") + 1; n != len(tc.want) {
				t.Errorf("%d problems reported, want %d: %v", n, len(tc.want), err)
			}
		})
	}
}

func TestWithDefaults(t *testing.T) {
	c := good().WithDefaults()
	if c.DomainType != "qemu" || c.Migration != "live" || c.OpTimeout != DefaultOpTimeout ||
		c.ReconnectMin != time.Second || c.ReconnectMax != 30*time.Second || c.QemuImg != "qemu-img" {
		t.Errorf("defaults not applied: %+v", c)
	}
	if c.Template.Cmdline != "console=ttyS0" || c.Template.DiskCache != "none" || c.Template.DiskBus != "virtio" {
		t.Errorf("template defaults not applied: %+v", c.Template)
	}
	// Without a kernel there is no command line.
	img := Config{Template: Template{BaseImage: "/b"}}.WithDefaults()
	if img.Template.Cmdline != "" {
		t.Errorf("cmdline %q without a kernel", img.Template.Cmdline)
	}
	// Set values stay.
	c2 := good()
	c2.DomainType, c2.Template.Cmdline = "kvm", "console=ttyS0 quiet"
	if c2 = c2.WithDefaults(); c2.DomainType != "kvm" || c2.Template.Cmdline != "console=ttyS0 quiet" {
		t.Errorf("set values changed: %+v", c2)
	}
}
