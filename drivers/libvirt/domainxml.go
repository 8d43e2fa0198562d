package libvirt

import (
	"encoding/xml"
	"fmt"
	"path/filepath"

	"github.com/bora-sched/bora/drivers"
)

// metadataNS is the XML namespace of the <metadata> element bora puts in
// its domains (lease and index, for people reading virsh dumpxml; bora
// itself finds its domains by name).
const metadataNS = "https://github.com/bora-sched/bora/libvirt/1"

// The files of one VM in the shared directory.
func overlayPath(dir, name string) string { return filepath.Join(dir, name+".qcow2") }
func savePath(dir, name string) string    { return filepath.Join(dir, name+".save") }
func partPath(dir, name string) string    { return filepath.Join(dir, name+".save.part") }
func consolePath(dir, name string) string { return filepath.Join(dir, name+".console") }

// ConsolePath is where the serial console of VM name is logged, in the
// shared directory dir.
func ConsolePath(dir, name string) string { return consolePath(dir, name) }

// SavePath is where the memory image of VM name is saved, in the shared
// directory dir.
func SavePath(dir, name string) string { return savePath(dir, name) }

type domainXML struct {
	XMLName    xml.Name    `xml:"domain"`
	Type       string      `xml:"type,attr"`
	Name       string      `xml:"name"`
	Metadata   metadataXML `xml:"metadata"`
	Memory     sizeXML     `xml:"memory"`
	VCPU       int         `xml:"vcpu"`
	OS         osXML       `xml:"os"`
	Features   featuresXML `xml:"features"`
	OnPoweroff string      `xml:"on_poweroff"`
	OnReboot   string      `xml:"on_reboot"`
	OnCrash    string      `xml:"on_crash"`
	Devices    devicesXML  `xml:"devices"`
}

type metadataXML struct {
	VM struct {
		XMLName xml.Name `xml:"https://github.com/bora-sched/bora/libvirt/1 vm"`
		Lease   uint64   `xml:"lease,attr"`
		Index   int      `xml:"index,attr"`
	}
}

type sizeXML struct {
	Unit  string `xml:"unit,attr"`
	Value int64  `xml:",chardata"`
}

type osXML struct {
	Type struct {
		Arch    string `xml:"arch,attr,omitempty"`
		Machine string `xml:"machine,attr,omitempty"`
		Value   string `xml:",chardata"`
	} `xml:"type"`
	Kernel  string   `xml:"kernel,omitempty"`
	Initrd  string   `xml:"initrd,omitempty"`
	Cmdline string   `xml:"cmdline,omitempty"`
	Boot    *bootXML `xml:"boot"`
}

type bootXML struct {
	Dev string `xml:"dev,attr"`
}

type featuresXML struct {
	ACPI struct{} `xml:"acpi"` // the power button: Shutdown needs it
}

type devicesXML struct {
	Emulator  string     `xml:"emulator,omitempty"`
	Disks     []diskXML  `xml:"disk"`
	Serial    serialXML  `xml:"serial"`
	Memballon memballoon `xml:"memballoon"`
}

type diskXML struct {
	Type   string `xml:"type,attr"`
	Device string `xml:"device,attr"`
	Driver struct {
		Name  string `xml:"name,attr"`
		Type  string `xml:"type,attr"`
		Cache string `xml:"cache,attr,omitempty"`
	} `xml:"driver"`
	Source struct {
		File string `xml:"file,attr"`
	} `xml:"source"`
	BackingStore *backingXML `xml:"backingStore"`
	Target       struct {
		Dev string `xml:"dev,attr"`
		Bus string `xml:"bus,attr"`
	} `xml:"target"`
}

// backingXML is the overlay's base image, as qemu-img made it (qcow2).
type backingXML struct {
	Type   string `xml:"type,attr"`
	Format struct {
		Type string `xml:"type,attr"`
	} `xml:"format"`
	Source struct {
		File string `xml:"file,attr"`
	} `xml:"source"`
}

type serialXML struct {
	Type   string `xml:"type,attr"`
	Source struct {
		Path   string `xml:"path,attr"`
		Append string `xml:"append,attr"`
	} `xml:"source"`
	Target struct {
		Port int `xml:"port,attr"`
	} `xml:"target"`
}

type memballoon struct {
	Model string `xml:"model,attr"`
}

// baseImage is the base image of vm's overlay: "" for a diskless VM
// (see ResolveImage).
func baseImage(c Config, vm drivers.VM) (string, error) {
	p, err := c.ResolveImage(vm.Image)
	if err != nil {
		return "", fmt.Errorf("%s: %w", vm.Name(), err)
	}
	return p, nil
}

// vcpus is the number of virtual CPUs for cpu hundredths of a core:
// rounded up, at least one.
func vcpus(cpu int64) int {
	if cpu <= 100 {
		return 1
	}
	return int((cpu + 99) / 100)
}

// DomainXML is the libvirt domain definition of vm under c (c with its
// defaults applied). It returns ErrInvalidVM for a VM without memory, and
// ErrUnknownImage or ErrImageOutside for an Image that ResolveImage
// refuses. The overlay disk names its base image as its backing store.
func DomainXML(c Config, vm drivers.VM) (string, error) {
	if vm.Memory <= 0 {
		return "", fmt.Errorf("%w: %s has memory %d MB", ErrInvalidVM, vm.Name(), vm.Memory)
	}
	base, err := baseImage(c, vm)
	if err != nil {
		return "", err
	}
	name := vm.Name()
	t := c.Template
	d := domainXML{Type: c.DomainType, Name: name, OnPoweroff: "destroy", OnReboot: "restart", OnCrash: "destroy"}
	d.Metadata.VM.Lease, d.Metadata.VM.Index = vm.Lease, vm.Index
	d.Memory = sizeXML{Unit: "MiB", Value: vm.Memory}
	d.VCPU = vcpus(vm.CPU)
	d.OS.Type.Arch, d.OS.Type.Machine, d.OS.Type.Value = t.Arch, t.Machine, "hvm"
	d.OS.Kernel, d.OS.Initrd, d.OS.Cmdline = t.Kernel, t.Initrd, t.Cmdline
	if t.Kernel == "" {
		d.OS.Boot = &bootXML{Dev: "hd"}
	}
	d.Devices.Emulator = t.Emulator
	if base != "" {
		var disk diskXML
		disk.Type, disk.Device = "file", "disk"
		disk.Driver.Name, disk.Driver.Type, disk.Driver.Cache = "qemu", "qcow2", t.DiskCache
		disk.Source.File = overlayPath(c.SharedDir, name)
		disk.BackingStore = &backingXML{Type: "file"}
		disk.BackingStore.Format.Type, disk.BackingStore.Source.File = "qcow2", base
		disk.Target.Dev, disk.Target.Bus = targetDev(t.DiskBus), t.DiskBus
		d.Devices.Disks = append(d.Devices.Disks, disk)
	}
	d.Devices.Serial.Type = "file"
	d.Devices.Serial.Source.Path = consolePath(c.SharedDir, name)
	d.Devices.Serial.Source.Append = "on" // a restored or migrated VM goes on writing the same log
	d.Devices.Memballon.Model = "none"
	out, err := xml.MarshalIndent(d, "", "  ")
	if err != nil {
		return "", fmt.Errorf("domain XML of %s: %w", name, err)
	}
	return string(out), nil
}

func targetDev(bus string) string {
	switch bus {
	case "virtio":
		return "vda"
	case "ide":
		return "hda"
	default:
		return "sda"
	}
}
