// Package libvirtcfg holds the libvirt driver's configuration: Config
// (hosts, template, image directories, timeouts), its defaults, Validate
// and ResolveImage, so that the configuration loader (package config,
// shared by borad and bora config check) and the daemon's request checks
// use them without importing the driver and its libvirt client. The
// driver (package libvirt) takes this Config.
//
// It imports nothing from bora but fielderr.
package libvirtcfg
