package libvirtcfg

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/bora-sched/bora/fielderr"
)

// Config is the libvirt driver's configuration. The zero value of a field
// means its default (see Defaults); Validate reports what is wrong with
// the field path of each problem ("hosts[1].uri: ...").
type Config struct {
	// Hosts are the libvirtd hosts bora manages.
	Hosts []HostConfig `yaml:"hosts"`
	// DomainType is the libvirt domain type: "qemu" (TCG, works anywhere;
	// the default) or "kvm".
	DomainType string `yaml:"domain_type"`
	// Template is what every VM is built from.
	Template Template `yaml:"template"`
	// SharedDir is a directory at the same path on bora's machine and on
	// every host (NFS, GlusterFS, CephFS, ...): per-VM overlays
	// (<name>.qcow2), saved memory images (<name>.save) and serial console
	// logs (<name>.console) live there.
	SharedDir string `yaml:"shared_dir"`
	// Migration is "live" (LiveMigrate moves running VMs peer-to-peer; the
	// default) or "cold" (LiveMigrate returns drivers.ErrUnsupported: the
	// daemon suspends, migrates and resumes instead).
	Migration string `yaml:"migration"`
	// MigrateUnsafe passes VIR_MIGRATE_UNSAFE to live migrations. libvirt
	// refuses to live-migrate a VM with a disk on storage it does not know
	// to be shared; set this when SharedDir is shared in a way libvirt does
	// not detect (or on one machine, as in CI). VMs without a disk (kernel
	// boot only) do not need it.
	MigrateUnsafe bool `yaml:"migrate_unsafe"`
	// OpTimeout bounds every operation whose context has no deadline
	// (default 10m).
	OpTimeout time.Duration `yaml:"op_timeout"`
	// ConnectTimeout bounds one attempt to connect to a host (default 20s).
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	// Keepalive is how often an idle connection is probed; a host that does
	// not answer within ConnectTimeout is declared down (default 10s).
	Keepalive time.Duration `yaml:"keepalive"`
	// ReconnectMin and ReconnectMax bound the exponential backoff between
	// attempts to reconnect to a host (defaults 1s and 30s).
	ReconnectMin time.Duration `yaml:"reconnect_min"`
	ReconnectMax time.Duration `yaml:"reconnect_max"`
	// QemuImg is the qemu-img command used to create overlays on bora's
	// machine (default "qemu-img").
	QemuImg string `yaml:"qemu_img"`
	// ImageDirs are the directories (absolute, on shared storage) whose
	// qcow2 files users may name as a lease's image: a path relative to
	// one of them, or an absolute path inside one. An image must resolve
	// (symlinks followed) inside the directory it was found in. Empty: users
	// may name only the entries of Template.Images.
	ImageDirs []string `yaml:"image_dirs"`
}

// HostConfig is one libvirtd host.
type HostConfig struct {
	// Name is the host's name in bora (drivers.VM.Host).
	Name string `yaml:"name"`
	// URI is how bora reaches the host's libvirtd: qemu:///system
	// (optionally ?socket=/path), qemu+tcp://host[:port]/system,
	// qemu+tls://host/system (?pkipath=), qemu+ssh://user@host/system
	// (?keyfile=, ?socket=), qemu+libssh://...
	URI string `yaml:"uri"`
	// CPU (cores) and Memory (MB) override what libvirt reports
	// (NodeGetInfo); 0 means use libvirt's numbers.
	CPU    float64 `yaml:"cpu"`
	Memory int64   `yaml:"memory"`
	// PeerURI is how the other hosts' libvirtd reach this one for a
	// peer-to-peer live migration (default: URI). Required when URI is
	// local (qemu:///system) and live migration is on with several hosts.
	PeerURI string `yaml:"peer_uri"`
	// MigrationURI is where the migration stream to this host goes, e.g.
	// tcp://10.0.0.2 (default: libvirt picks the host's hostname, which
	// must then resolve on the source).
	MigrationURI string `yaml:"migration_uri"`
}

// Template is what each VM's domain is built from: direct kernel boot
// (Kernel, Initrd, Cmdline), a disk (a copy-on-write overlay of
// BaseImage, or of Images[vm.Image]), or both (kernel boot with a disk).
// All paths are absolute and the same on every host (shared storage).
type Template struct {
	Kernel  string `yaml:"kernel"`
	Initrd  string `yaml:"initrd"`
	Cmdline string `yaml:"cmdline"` // default "console=ttyS0" with a kernel
	// BaseImage is the qcow2 image a VM with Image "" gets an overlay of.
	BaseImage string `yaml:"base_image"`
	// Images maps a VM's Image name to a base image.
	Images map[string]string `yaml:"images"`
	// Arch (default x86_64), Machine (default: libvirt's) and Emulator
	// (default: libvirt's) of the domain.
	Arch     string `yaml:"arch"`
	Machine  string `yaml:"machine"`
	Emulator string `yaml:"emulator"`
	// DiskBus (default virtio) and DiskCache (default none, which live
	// migration on shared storage wants) of the overlay disk.
	DiskBus   string `yaml:"disk_bus"`
	DiskCache string `yaml:"disk_cache"`
}

// Defaults of Config's fields.
const (
	DefaultDomainType     = "qemu"
	DefaultMigration      = "live"
	DefaultOpTimeout      = 10 * time.Minute
	DefaultConnectTimeout = 20 * time.Second
	DefaultKeepalive      = 10 * time.Second
	DefaultReconnectMin   = time.Second
	DefaultReconnectMax   = 30 * time.Second
	DefaultQemuImg        = "qemu-img"
	DefaultArch           = "x86_64"
	DefaultCmdline        = "console=ttyS0"
	DefaultDiskBus        = "virtio"
	DefaultDiskCache      = "none"
)

// WithDefaults returns c with every unset field at its default.
func (c Config) WithDefaults() Config {
	setS := func(p *string, v string) {
		if *p == "" {
			*p = v
		}
	}
	setD := func(p *time.Duration, v time.Duration) {
		if *p == 0 {
			*p = v
		}
	}
	setS(&c.DomainType, DefaultDomainType)
	setS(&c.Migration, DefaultMigration)
	setS(&c.QemuImg, DefaultQemuImg)
	setD(&c.OpTimeout, DefaultOpTimeout)
	setD(&c.ConnectTimeout, DefaultConnectTimeout)
	setD(&c.Keepalive, DefaultKeepalive)
	setD(&c.ReconnectMin, DefaultReconnectMin)
	setD(&c.ReconnectMax, DefaultReconnectMax)
	t := &c.Template
	setS(&t.Arch, DefaultArch)
	setS(&t.DiskBus, DefaultDiskBus)
	setS(&t.DiskCache, DefaultDiskCache)
	if t.Kernel != "" {
		setS(&t.Cmdline, DefaultCmdline)
	}
	c.Hosts = append([]HostConfig(nil), c.Hosts...)
	c.ImageDirs = append([]string(nil), c.ImageDirs...)
	return c
}

// Validate reports every problem of c (unset fields count as their
// defaults), joined; each is a *fielderr.Error wrapping ErrInvalidConfig. It
// does not contact the hosts.
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fielderr.Wrap(ErrInvalidConfig, field, format, args...))
	}
	d := c.WithDefaults()
	if len(c.Hosts) == 0 {
		bad("hosts", "at least one host is needed")
	}
	seen := map[string]int{}
	for i, h := range c.Hosts {
		validateHost(h, fmt.Sprintf("hosts[%d]", i), d.Migration == "live" && len(c.Hosts) > 1, seen, i, bad)
	}
	switch d.DomainType {
	case "qemu", "kvm":
	default:
		bad("domain_type", "%q is not qemu or kvm", c.DomainType)
	}
	switch d.Migration {
	case "live", "cold":
	default:
		bad("migration", "%q is not live or cold", c.Migration)
	}
	if c.SharedDir == "" {
		bad("shared_dir", "required: overlays and saved images go there")
	} else if !filepath.IsAbs(c.SharedDir) {
		bad("shared_dir", "%q is not an absolute path", c.SharedDir)
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"op_timeout", c.OpTimeout}, {"connect_timeout", c.ConnectTimeout}, {"keepalive", c.Keepalive},
		{"reconnect_min", c.ReconnectMin}, {"reconnect_max", c.ReconnectMax}} {
		if f.v < 0 {
			bad(f.name, "%v is negative", f.v)
		}
	}
	if d.ReconnectMin > d.ReconnectMax {
		bad("reconnect_min", "%v is more than reconnect_max (%v)", d.ReconnectMin, d.ReconnectMax)
	}
	validateTemplate(c.Template, bad)
	for i, dir := range c.ImageDirs {
		if !filepath.IsAbs(dir) {
			bad(fmt.Sprintf("image_dirs[%d]", i), "%q is not an absolute path", dir)
		}
	}
	return errors.Join(errs...)
}

func validateHost(h HostConfig, path string, live bool, seen map[string]int, i int, bad func(string, string, ...any)) {
	switch {
	case h.Name == "":
		bad(path+".name", "required")
	case strings.ContainsAny(h.Name, " \t\n/"):
		bad(path+".name", "%q contains a space or a slash", h.Name)
	default:
		if j, dup := seen[h.Name]; dup {
			bad(path+".name", "%q is also the name of hosts[%d]", h.Name, j)
		}
		seen[h.Name] = i
	}
	u, err := checkURI(h.URI)
	if err != nil {
		bad(path+".uri", "%v", err)
	}
	if h.PeerURI != "" {
		if _, err := checkURI(h.PeerURI); err != nil {
			bad(path+".peer_uri", "%v", err)
		}
	} else if live && u != nil && u.Host == "" {
		bad(path+".peer_uri", "required for live migration: uri %q is local, the other hosts cannot use it", h.URI)
	}
	if h.MigrationURI != "" {
		m, err := url.Parse(h.MigrationURI)
		if err != nil || m.Scheme == "" || m.Host == "" {
			bad(path+".migration_uri", "%q is not a URI like tcp://10.0.0.2", h.MigrationURI)
		}
	}
	if h.CPU < 0 {
		bad(path+".cpu", "%v is negative", h.CPU)
	}
	if h.Memory < 0 {
		bad(path+".memory", "%v is negative", h.Memory)
	}
}

// transports are the URI transports go-libvirt can dial.
var transports = map[string]bool{"": true, "unix": true, "tcp": true, "tls": true, "ssh": true, "libssh": true, "libssh2": true}

func checkURI(s string) (*url.URL, error) {
	if s == "" {
		return nil, errors.New("required (e.g. qemu+tcp://host/system)")
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URI: %v", s, err)
	}
	drv, transport, _ := strings.Cut(u.Scheme, "+")
	if drv != "qemu" && drv != "test" {
		return nil, fmt.Errorf("%q: driver %q is not qemu (or test)", s, drv)
	}
	if !transports[transport] {
		return nil, fmt.Errorf("%q: transport %q is not unix, tcp, tls, ssh, libssh or libssh2", s, transport)
	}
	if drv == "qemu" && u.Path != "/system" && u.Path != "/session" {
		return nil, fmt.Errorf("%q: path %q is not /system or /session", s, u.Path)
	}
	if (transport == "tcp" || transport == "tls" || strings.Contains(transport, "ssh")) && u.Host == "" {
		return nil, fmt.Errorf("%q: transport %s needs a host", s, transport)
	}
	return u, nil
}

func validateTemplate(t Template, bad func(string, string, ...any)) {
	if t.Kernel == "" && t.BaseImage == "" && len(t.Images) == 0 {
		bad("template", "needs a kernel (direct boot) or a base_image (or images)")
	}
	abs := func(field, p string) {
		if p != "" && !filepath.IsAbs(p) {
			bad("template."+field, "%q is not an absolute path", p)
		}
	}
	abs("kernel", t.Kernel)
	abs("initrd", t.Initrd)
	abs("base_image", t.BaseImage)
	abs("emulator", t.Emulator)
	if t.Kernel == "" {
		if t.Initrd != "" {
			bad("template.initrd", "needs template.kernel")
		}
		if t.Cmdline != "" {
			bad("template.cmdline", "needs template.kernel")
		}
	}
	for name, p := range t.Images {
		if name == "" {
			bad("template.images", "an image has an empty name")
		}
		abs("images."+name, p)
	}
	switch t.DiskCache {
	case "", "none", "directsync", "writethrough", "writeback", "unsafe", "default":
	default:
		bad("template.disk_cache", "%q is not a libvirt cache mode", t.DiskCache)
	}
	switch t.DiskBus {
	case "", "virtio", "sata", "scsi", "ide":
	default:
		bad("template.disk_bus", "%q is not virtio, sata, scsi or ide", t.DiskBus)
	}
}
