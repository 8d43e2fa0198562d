// Package opennebula is bora's OpenNebula driver: bora as OpenNebula's
// lease scheduler (6.x and 7.x), over oned's XML-RPC API (package oca).
//
// Intake. OpenNebula users create VMs on HOLD (or PENDING, with
// TakePending, when OpenNebula's own scheduler is off). Pending polls
// them (one.vmpool.infoextended) and groups them into lease requests by
// their BORA_LEASE attribute:
//
//	BORA_LEASE = [ ID = "job-7", VMS = "2", START = "+01:00:00",
//	               DURATION = "02:00:00", CLASS = "suspendable" ]
//
// (VMs of one owner sharing an ID are one lease; see leaseattr.go for
// every key). A VM without it is a one-VM best-effort lease of
// DefaultDuration. The daemon submits each request and calls Adopt,
// which writes BORA_LEASE_ID and BORA_VM_INDEX into the VMs' user
// templates (one.vm.update): that is how a restarted driver, and List,
// know which OpenNebula VM is which lease VM. VMIDs gives a lease's
// OpenNebula VM ids for `bora lease show`; Reject marks VMs bora refused
// (BORA_ERROR) so they are not offered again.
//
// Enactment. Hosts come from one.hostpool.info (capacity MAX_CPU in
// hundredths of a core, MAX_MEM in MB). Start is one.vm.deploy(vm, host,
// enforce=false, Datastore); Suspend and Resume are one.vm.action
// "suspend" and "resume"; Migrate moves a suspended VM with a cold
// one.vm.migrate (OpenNebula resumes a VM where it is, so Resume migrates
// it first if it is elsewhere); LiveMigrate is a live one.vm.migrate
// (with Migration "cold" it is drivers.ErrUnsupported and the daemon
// suspends, migrates and resumes); Stop is "terminate-hard"; Shutdown is
// "terminate", then "terminate-hard" after the grace time; Cleanup only
// makes sure the VM is DONE (OpenNebula removes its files). Every
// operation reads the VMs' state first and calls only what is still
// needed (so it is idempotent), then follows the VMs with one.vm.info,
// backing off up to PollInterval, until OpenNebula reports them done or
// failed, bounded by the context and OpTimeout. Failures carry
// OpenNebula's text: the error answer, or the VM's ERROR attribute.
//
// Events. A poller (every PollInterval) reports bora VMs that went to
// DONE (VMCrashed), POWEROFF (the guest shut down: VMExited), UNKNOWN or a
// …_FAILURE state (VMCrashed) without bora asking, and hosts going to
// ERROR (HostDown) and back (HostUp).
//
// Power. Power() is a drivers.PowerDriver on one.host.status: OFFLINE
// for off, ENABLED (then MONITORED) for on; its Enable and Disable are
// the daemon's host actions (ENABLED, DISABLED).
//
// Secrets: the password comes from the configuration or an ONE_AUTH file
// and is never logged or put in an error (Config.String redacts it).
package opennebula
