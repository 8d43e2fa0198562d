package libvirt

import (
	"encoding/xml"
	"errors"
	"strings"
	"testing"

	"github.com/bora-sched/bora/drivers"
)

func TestDomainXML(t *testing.T) {
	c := good()
	c.Template.Images = map[string]string{"debian": "/s/debian.qcow2"}
	c.Template.Machine = "pc-i440fx-7.2"
	c = c.WithDefaults()
	cases := []struct {
		name    string
		cfg     func(Config) Config
		vm      drivers.VM
		vcpus   int    // ceil(CPU/100), at least 1
		disk    string // overlay path; "" = no disk
		kernel  bool
		wantErr error
	}{
		// 150 hundredths of a core: ceil(1.5) = 2 vCPUs.
		{"kernel and disk", nil, drivers.VM{Lease: 7, Index: 1, CPU: 150, Memory: 128}, 2, "/s/bora-7-1.qcow2", true, nil},
		// 100 hundredths: 1 vCPU; 25 hundredths: still 1.
		{"one core", nil, drivers.VM{Lease: 7, Index: 0, CPU: 100, Memory: 256}, 1, "/s/bora-7-0.qcow2", true, nil},
		{"quarter core", nil, drivers.VM{Lease: 8, CPU: 25, Memory: 256}, 1, "/s/bora-8-0.qcow2", true, nil},
		// 400 hundredths: 4 vCPUs; the named image still gets its overlay.
		{"named image", nil, drivers.VM{Lease: 9, CPU: 400, Memory: 1024, Image: "debian"}, 4, "/s/bora-9-0.qcow2", true, nil},
		{"kernel only", func(c Config) Config { c.Template.BaseImage = ""; return c },
			drivers.VM{Lease: 3, CPU: 100, Memory: 128}, 1, "", true, nil},
		{"disk only", func(c Config) Config { c.Template.Kernel, c.Template.Initrd, c.Template.Cmdline = "", "", ""; return c },
			drivers.VM{Lease: 3, CPU: 100, Memory: 128}, 1, "/s/bora-3-0.qcow2", false, nil},
		{"unknown image", nil, drivers.VM{Lease: 9, Memory: 128, Image: "arch"}, 0, "", false, ErrUnknownImage},
		{"no memory", nil, drivers.VM{Lease: 9, CPU: 100}, 0, "", false, ErrInvalidVM},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := c
			if tc.cfg != nil {
				cfg = tc.cfg(c)
			}
			out, err := DomainXML(cfg, tc.vm)
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
				t.Fatalf("the XML does not parse back: %v\n%s", err, out)
			}
			name := tc.vm.Name()
			if _, _, ok := drivers.ParseName(d.Name); !ok || d.Name != name {
				t.Errorf("name %q, want %q", d.Name, name)
			}
			if d.Type != "qemu" || d.Memory.Unit != "MiB" || d.Memory.Value != tc.vm.Memory || d.VCPU != tc.vcpus {
				t.Errorf("type %s memory %d %s vcpu %d; want qemu %d MiB %d", d.Type, d.Memory.Value, d.Memory.Unit, d.VCPU, tc.vm.Memory, tc.vcpus)
			}
			if d.Metadata.VM.Lease != tc.vm.Lease || d.Metadata.VM.Index != tc.vm.Index {
				t.Errorf("metadata %+v", d.Metadata.VM)
			}
			if tc.kernel != (d.OS.Kernel != "") || (tc.kernel && d.OS.Cmdline != "console=ttyS0") || (!tc.kernel && d.OS.Boot == nil) {
				t.Errorf("os %+v (kernel boot %v)", d.OS, tc.kernel)
			}
			if d.OS.Type.Machine != "pc-i440fx-7.2" || d.OS.Type.Arch != "x86_64" {
				t.Errorf("os type %+v", d.OS.Type)
			}
			switch {
			case tc.disk == "" && len(d.Devices.Disks) != 0:
				t.Errorf("disks %+v, want none", d.Devices.Disks)
			case tc.disk != "" && (len(d.Devices.Disks) != 1 || d.Devices.Disks[0].Source.File != tc.disk ||
				d.Devices.Disks[0].Driver.Type != "qcow2" || d.Devices.Disks[0].Driver.Cache != "none"):
				t.Errorf("disks %+v, want the qcow2 overlay %s, cache none", d.Devices.Disks, tc.disk)
			}
			if s := d.Devices.Serial; s.Type != "file" || s.Source.Path != "/s/"+name+".console" || s.Source.Append != "on" {
				t.Errorf("serial %+v, want a file /s/%s.console appended to", s, name)
			}
			if !strings.Contains(out, "<acpi></acpi>") {
				t.Errorf("no ACPI (the power button Shutdown presses):\n%s", out)
			}
		})
	}
}

func TestDomainXMLEscapes(t *testing.T) {
	c := good()
	c.Template.Cmdline = `console=ttyS0 msg="a<b&c"`
	out, err := DomainXML(c.WithDefaults(), drivers.VM{Lease: 1, CPU: 100, Memory: 128})
	if err != nil {
		t.Fatal(err)
	}
	var d domainXML
	if err := xml.Unmarshal([]byte(out), &d); err != nil || d.OS.Cmdline != c.Template.Cmdline {
		t.Errorf("cmdline %q (err %v), want %q", d.OS.Cmdline, err, c.Template.Cmdline)
	}
}

func TestVCPUs(t *testing.T) {
	for _, c := range []struct {
		cpu  int64
		want int
	}{{0, 1}, {1, 1}, {100, 1}, {101, 2}, {200, 2}, {250, 3}, {1600, 16}} {
		if got := vcpus(c.cpu); got != c.want {
			t.Errorf("vcpus(%d) = %d, want %d", c.cpu, got, c.want)
		}
	}
}
