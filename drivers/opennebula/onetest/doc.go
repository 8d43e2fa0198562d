// Package onetest is a stand-in for oned, OpenNebula's daemon, as far as
// bora's OpenNebula driver talks to it: an http.Handler answering
// XML-RPC at /RPC2 (use it with httptest.NewServer, or run
// onetest/cmd/onestandin).
//
// It answers one.vm.info, one.vm.allocate, one.vm.deploy,
// one.vm.action, one.vm.migrate, one.vm.update, one.vmpool.info,
// one.vmpool.infoextended, one.hostpool.info, one.host.info,
// one.host.status and one.system.version with what oned answers: the
// response array [true, result, 0] or [false, message, code, id, 0]
// with oned's messages and error codes (AUTHENTICATION 0x100 for a wrong
// session, AUTHORIZATION 0x200, NO_EXISTS 0x400 with "Error getting
// virtual machine [42].", ACTION 0x800 for a call in the wrong state,
// XML_RPC_API 0x1000, INTERNAL 0x2000; REPLICATION 0x10000 only through
// RejectNext), XML-RPC faults for unknown
// methods and parameters of the wrong type, and VM and host documents
// following OpenNebula's vm.xsd and host.xsd.
//
// VMs move through OpenNebula's real state sequences, each working
// state lasting a configurable delay:
//
//	deploy           HOLD|PENDING -> ACTIVE/PROLOG -> ACTIVE/BOOT -> ACTIVE/RUNNING
//	suspend          ACTIVE/RUNNING -> ACTIVE/SAVE_SUSPEND -> SUSPENDED
//	resume           SUSPENDED -> ACTIVE/BOOT_SUSPENDED -> ACTIVE/RUNNING
//	migrate (cold)   ACTIVE/RUNNING -> SAVE_MIGRATE -> PROLOG_MIGRATE -> BOOT_MIGRATE -> RUNNING
//	migrate (live)   ACTIVE/RUNNING -> ACTIVE/MIGRATE -> ACTIVE/RUNNING
//	migrate suspended SUSPENDED -> ACTIVE/PROLOG_MIGRATE_SUSPEND -> SUSPENDED
//	terminate        ACTIVE/RUNNING -> ACTIVE/SHUTDOWN -> ACTIVE/EPILOG -> DONE
//	terminate saved  SUSPENDED|POWEROFF -> ACTIVE/EPILOG -> DONE
//	terminate queued HOLD|PENDING -> DONE
//
// Like oned, every document shows PREV_STATE and PREV_LCM_STATE equal to
// STATE and LCM_STATE (VirtualMachinePool::update copies them before each
// save), and the history records follow oned's life-cycle manager: a
// deploy, migrate or resume request opens a record (every time 0 until
// the work starts, Delays.Dispatch later), the source's record ends when
// the VM leaves it (ETIME, RETIME), the new one notes its disk copy
// (PSTIME, PETIME) and when the VM runs there (RSTIME); a resume opens a
// copy of the last record, and a failed live migration a copy of the
// source's (the VM is back there).
//
// Hosts go through INIT -> MONITORED (enable), DISABLED and OFFLINE
// (one.host.status); a host reports TOTAL and MAX capacity 0 until its
// first monitoring and while OFFLINE. Test hooks add users, hosts
// (AddHost: monitored; AddHostUnmonitored and MonitorHost) and VMs (AddVM takes a
// template in OpenNebula's syntax, BORA_LEASE included), change the
// delays, fail the next operation of a VM (FailNext: the VM ends in the
// …_FAILURE state or back where it was, with USER_TEMPLATE/ERROR set, as
// oned does) or the next call of a method (RejectNext), slow every call
// of a method down (SetCallDelay: a distant or busy oned; Delayed counts
// the calls waiting), act behind the
// driver's back (GuestPoweroff, Terminate, FailHost), and inspect what
// happened: every call received (Calls, CallStrings) and every state a
// VM went through (Trail).
//
// Delays run on the wall clock (time.AfterFunc); keep them short in
// tests. The stand-in models one cluster, a shared system datastore 0,
// and users that are either oneadmin or plain owners of their VMs.
package onetest
