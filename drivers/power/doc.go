// Package power switches hosts on and off for bora: implementations of
// drivers.PowerDriver.
//
// Fake keeps each host's power state in memory and takes a fixed boot or
// shutdown time on the injected clock, passing through the booting and
// shutting-down states; emulation and tests use it.
//
// Command runs configurable shell commands (IPMI, wake-on-LAN, ssh
// poweroff...), written as text/template texts over a host's HostInfo,
// each under a timeout; an optional status command makes switching
// idempotent by asking first.
package power
