// Package libvirt is bora's driver for qemu VMs on libvirtd hosts: it
// implements drivers.Driver with github.com/digitalocean/go-libvirt (pure
// Go RPC to libvirtd, no cgo), and measures the overhead model's rates
// (Calibrate, `bora calibrate`).
//
// # What it does
//
// Each VM of a lease is a domain named VM.Name() ("bora-<lease>-<index>");
// the driver finds its own domains by that name after a restart and never
// looks at, stops or reports a domain whose name drivers.ParseName
// rejects. Domains are built from Config.Template (DomainXML): memory =
// VM.Memory MiB, ceil(VM.CPU/100) vCPUs, domain type "qemu" (TCG) or
// "kvm", direct kernel boot and/or a disk that is a qcow2 copy-on-write
// overlay of a base image (made with qemu-img on bora's machine, and named
// as the disk's backingStore), ACPI (for the power button), the serial
// console logged to a file, no network. The base image is the template's,
// or the VM's Image (ResolveImage): a name of Template.Images, or a file of
// ImageDirs that resolves, symlinks followed, inside its directory; a path
// with ".." or one leading out of the directories is refused
// (ErrImageOutside), so a user cannot get a host file attached to a guest.
//
// Operations (all idempotent, all bounded by the context or OpTimeout):
//
//	Start        define + create; running already: nothing; defined but
//	             shut off: started again
//	Suspend      pause every VM of the lease, then save each to
//	             <shared_dir>/<name>.save (written as .save.part, renamed
//	             when complete) and undefine it; saved already: nothing
//	Migrate      shared storage: nothing to copy; checks the images exist
//	Resume       restore each image on VM.Host paused, then unpause all,
//	             then delete the images and define the domains persistently
//	LiveMigrate  peer-to-peer live migration (VIR_MIGRATE_LIVE|PEER2PEER|
//	             PERSIST_DEST|UNDEFINE_SOURCE, migrate_uri = the
//	             destination's migration_uri); ErrUnsupported with
//	             migration: cold
//	Stop         destroy
//	Shutdown     ACPI power button, wait up to the grace time, destroy
//	Cleanup      destroy + undefine on every reachable host; delete the
//	             overlay, the image and the console log
//	List         bora's domains on every reachable host, and images of VMs
//	             that run nowhere (Saved, Host "")
//	Hosts        NodeGetInfo (cores*100, MB) unless the config overrides it
//
// A connection per host stays open; a goroutine per host watches it
// (go-libvirt's Disconnected channel and a keepalive call every
// Keepalive), reconnects with exponential backoff between ReconnectMin and
// ReconnectMax, and consumes libvirt's lifecycle events. A domain of
// bora's that stops without bora asking becomes an Event: VMExited when
// the guest powered itself off, VMCrashed when it crashed, qemu failed, or
// someone destroyed, saved or migrated it; HostDown and HostUp report a
// connection lost and regained. Events missed while a host was down are
// not replayed: the daemon reconciles with List on HostUp.
//
// # Configuring hosts (for a sysadmin)
//
// A host is a libvirtd URI:
//
//	qemu:///system                          local socket (?socket=/path)
//	qemu+tcp://10.0.0.2/system              TCP (auth_tcp; use on trusted networks)
//	qemu+tls://10.0.0.2/system?pkipath=/etc/bora/pki
//	qemu+ssh://root@10.0.0.2/system?keyfile=/etc/bora/id_ed25519
//
// On each host: install libvirt-daemon-system and qemu-system-x86 (Debian),
// start virtlogd and libvirtd, and give every host its own host_uuid in
// libvirtd.conf (libvirt refuses to migrate between two hosts with the same
// UUID, and falls back to the SMBIOS one, which may be missing or shared
// on cloned machines). For migration, set migration_port_min/max in
// qemu.conf and open those ports between hosts, and the libvirtd port
// (16509 TCP, 16514 TLS) from every host to every other: in a peer-to-peer
// migration the source's libvirtd connects to the destination's peer_uri
// itself, so that URI must work from the source host (with its own
// credentials), not only from bora's machine.
//
// Shared storage: shared_dir (e.g. an NFS export) must be mounted at the
// same path on every host and on bora's machine (bora creates overlays
// there with qemu-img, renames finished images, lists and deletes files).
// Kernels, initramfs and base images go there too, or anywhere at one
// path on all hosts. The files must be readable and writable by the user
// libvirt runs qemu as (libvirt-qemu; with dynamic_ownership libvirt
// chowns what it uses; on NFS with root_squash, export with write access
// for that user). libvirt saves images as root with mode 0600; bora needs
// write access to the directory, not to the files.
//
// Migration: migration: live (default) makes LiveMigrate work; "cold"
// makes it return drivers.ErrUnsupported so that the daemon suspends,
// migrates and resumes instead. Set migration_uri (tcp://<address>) on
// each host to choose the network the memory goes over; without it libvirt
// uses the destination's hostname, which must resolve on the source. Set
// migrate_unsafe only if libvirt refuses with "Migration without shared
// storage is unsafe" although the disk is on shared storage it does not
// recognise (as in CI, where both hosts are one machine).
//
// # Known traps
//
//   - /dev/kvm may exist and still not work (nested virtualisation off):
//     guests then hang or abort; use domain_type: qemu. With /dev/kvm mode
//     600 root, libvirt re-probes qemu on every call (~40 s a define):
//     chgrp kvm /dev/kvm; chmod 660 /dev/kvm.
//   - The Debian kernel needs at least 96 MiB of guest memory to boot.
//   - A guest ignores the power button until its init listens for it
//     (early boot, or no acpid): Shutdown then destroys after the grace.
//     The CI guest (.ci/libvirt/build-guest.sh) loads button.ko and
//     evdev.ko and powers off on the button.
//   - qemu outlives libvirtd: destroy the domains before stopping libvirtd.
//   - migration_address in qemu.conf may not be a local address (libvirtd
//     refuses to start); pass migration_uri instead.
//   - go-libvirt calls cannot be cancelled: when a context ends, the
//     driver returns but libvirtd finishes what it was asked (a save, a
//     migration). The operations are idempotent: the retry finds the
//     outcome.
//   - Two bora daemons (or two `bora calibrate` runs) on the same hosts
//     and shared directory see, and clean up, each other's VMs.
//
// # Measured here
//
// On the CI machine (Debian 12, 2 cores, libvirt 9.0, qemu 7.2, TCG, both
// hosts on one machine, shared_dir on ext4), `bora calibrate` and the
// integration tests measured: a 192 MB guest with 96 MB written: save
// 1.4-2.2 s (image 159 MB; suspend_rate 90-140 MB/s), restore 0.3-0.75 s
// (resume_rate 250-670 MB/s), pause and unpause 3-15 ms, live migration
// 1.7-3.8 s; a 256 MB guest with 156 MB written: save 1.7 s (219 MB,
// 147 MB/s), restore 0.43 s, live migration 2.5 s. Boot (kernel to init)
// about 5 s. Other work on the machine moves these by 2x: calibrate on
// the real hosts, with a VM of the size the leases use.
//
// # Tests
//
// The unit tests here need no libvirt. integration/libvirt runs the driver
// against two real libvirtd hosts on one machine; .ci/libvirt/run-tests.sh
// installs and starts them (setup.sh), builds the guest from Debian
// packages (build-guest.sh), runs the tests and stops everything
// (teardown.sh).
package libvirt
