package oca

import "strconv"

// State is a VM's state (STATE in the VM document).
type State int

// VM states, with OpenNebula's numbers (7, FAILED, is no longer used).
const (
	Init           State = 0
	Pending        State = 1
	Hold           State = 2
	Active         State = 3
	Stopped        State = 4
	Suspended      State = 5
	Done           State = 6
	Poweroff       State = 8
	Undeployed     State = 9
	Cloning        State = 10
	CloningFailure State = 11
)

var stateNames = map[State]string{
	Init: "INIT", Pending: "PENDING", Hold: "HOLD", Active: "ACTIVE",
	Stopped: "STOPPED", Suspended: "SUSPENDED", Done: "DONE",
	Poweroff: "POWEROFF", Undeployed: "UNDEPLOYED", Cloning: "CLONING",
	CloningFailure: "CLONING_FAILURE",
}

// String is OpenNebula's name for the state.
func (s State) String() string {
	if n, ok := stateNames[s]; ok {
		return n
	}
	return "STATE_" + strconv.Itoa(int(s))
}

// LCMState is the life-cycle manager's state of an ACTIVE VM (LCM_STATE;
// LcmInit for any other state).
type LCMState int

// LCM states, with OpenNebula's numbers (13 and 14, CANCEL and FAILURE,
// and 58 are no longer used).
const (
	LcmInit                      LCMState = 0
	Prolog                       LCMState = 1
	Boot                         LCMState = 2
	Running                      LCMState = 3
	Migrate                      LCMState = 4
	SaveStop                     LCMState = 5
	SaveSuspend                  LCMState = 6
	SaveMigrate                  LCMState = 7
	PrologMigrate                LCMState = 8
	PrologResume                 LCMState = 9
	EpilogStop                   LCMState = 10
	Epilog                       LCMState = 11
	Shutdown                     LCMState = 12
	CleanupResubmit              LCMState = 15
	Unknown                      LCMState = 16
	Hotplug                      LCMState = 17
	ShutdownPoweroff             LCMState = 18
	BootUnknown                  LCMState = 19
	BootPoweroff                 LCMState = 20
	BootSuspended                LCMState = 21
	BootStopped                  LCMState = 22
	CleanupDelete                LCMState = 23
	HotplugSnapshot              LCMState = 24
	HotplugNic                   LCMState = 25
	HotplugSaveas                LCMState = 26
	HotplugSaveasPoweroff        LCMState = 27
	HotplugSaveasSuspended       LCMState = 28
	ShutdownUndeploy             LCMState = 29
	EpilogUndeploy               LCMState = 30
	PrologUndeploy               LCMState = 31
	BootUndeploy                 LCMState = 32
	HotplugPrologPoweroff        LCMState = 33
	HotplugEpilogPoweroff        LCMState = 34
	BootMigrate                  LCMState = 35
	BootFailure                  LCMState = 36
	BootMigrateFailure           LCMState = 37
	PrologMigrateFailure         LCMState = 38
	PrologFailure                LCMState = 39
	EpilogFailure                LCMState = 40
	EpilogStopFailure            LCMState = 41
	EpilogUndeployFailure        LCMState = 42
	PrologMigratePoweroff        LCMState = 43
	PrologMigratePoweroffFailure LCMState = 44
	PrologMigrateSuspend         LCMState = 45
	PrologMigrateSuspendFailure  LCMState = 46
	BootUndeployFailure          LCMState = 47
	BootStoppedFailure           LCMState = 48
	PrologResumeFailure          LCMState = 49
	PrologUndeployFailure        LCMState = 50
	DiskSnapshotPoweroff         LCMState = 51
	DiskSnapshotRevertPoweroff   LCMState = 52
	DiskSnapshotDeletePoweroff   LCMState = 53
	DiskSnapshotSuspended        LCMState = 54
	DiskSnapshotRevertSuspended  LCMState = 55
	DiskSnapshotDeleteSuspended  LCMState = 56
	DiskSnapshot                 LCMState = 57
	DiskSnapshotDelete           LCMState = 59
	PrologMigrateUnknown         LCMState = 60
	PrologMigrateUnknownFailure  LCMState = 61
	DiskResize                   LCMState = 62
	DiskResizePoweroff           LCMState = 63
	DiskResizeUndeployed         LCMState = 64
	HotplugNicPoweroff           LCMState = 65
	HotplugResize                LCMState = 66
	HotplugSaveasUndeployed      LCMState = 67
	HotplugSaveasStopped         LCMState = 68
	Backup                       LCMState = 69
	BackupPoweroff               LCMState = 70
	Restore                      LCMState = 71
)

var lcmNames = map[LCMState]string{
	LcmInit: "LCM_INIT", Prolog: "PROLOG", Boot: "BOOT", Running: "RUNNING",
	Migrate: "MIGRATE", SaveStop: "SAVE_STOP", SaveSuspend: "SAVE_SUSPEND",
	SaveMigrate: "SAVE_MIGRATE", PrologMigrate: "PROLOG_MIGRATE",
	PrologResume: "PROLOG_RESUME", EpilogStop: "EPILOG_STOP", Epilog: "EPILOG",
	Shutdown: "SHUTDOWN", CleanupResubmit: "CLEANUP_RESUBMIT", Unknown: "UNKNOWN",
	Hotplug: "HOTPLUG", ShutdownPoweroff: "SHUTDOWN_POWEROFF",
	BootUnknown: "BOOT_UNKNOWN", BootPoweroff: "BOOT_POWEROFF",
	BootSuspended: "BOOT_SUSPENDED", BootStopped: "BOOT_STOPPED",
	CleanupDelete: "CLEANUP_DELETE", HotplugSnapshot: "HOTPLUG_SNAPSHOT",
	HotplugNic: "HOTPLUG_NIC", HotplugSaveas: "HOTPLUG_SAVEAS",
	HotplugSaveasPoweroff:  "HOTPLUG_SAVEAS_POWEROFF",
	HotplugSaveasSuspended: "HOTPLUG_SAVEAS_SUSPENDED",
	ShutdownUndeploy:       "SHUTDOWN_UNDEPLOY", EpilogUndeploy: "EPILOG_UNDEPLOY",
	PrologUndeploy: "PROLOG_UNDEPLOY", BootUndeploy: "BOOT_UNDEPLOY",
	HotplugPrologPoweroff: "HOTPLUG_PROLOG_POWEROFF",
	HotplugEpilogPoweroff: "HOTPLUG_EPILOG_POWEROFF", BootMigrate: "BOOT_MIGRATE",
	BootFailure: "BOOT_FAILURE", BootMigrateFailure: "BOOT_MIGRATE_FAILURE",
	PrologMigrateFailure: "PROLOG_MIGRATE_FAILURE", PrologFailure: "PROLOG_FAILURE",
	EpilogFailure: "EPILOG_FAILURE", EpilogStopFailure: "EPILOG_STOP_FAILURE",
	EpilogUndeployFailure:        "EPILOG_UNDEPLOY_FAILURE",
	PrologMigratePoweroff:        "PROLOG_MIGRATE_POWEROFF",
	PrologMigratePoweroffFailure: "PROLOG_MIGRATE_POWEROFF_FAILURE",
	PrologMigrateSuspend:         "PROLOG_MIGRATE_SUSPEND",
	PrologMigrateSuspendFailure:  "PROLOG_MIGRATE_SUSPEND_FAILURE",
	BootUndeployFailure:          "BOOT_UNDEPLOY_FAILURE", BootStoppedFailure: "BOOT_STOPPED_FAILURE",
	PrologResumeFailure: "PROLOG_RESUME_FAILURE", PrologUndeployFailure: "PROLOG_UNDEPLOY_FAILURE",
	DiskSnapshotPoweroff: "DISK_SNAPSHOT_POWEROFF", DiskSnapshotRevertPoweroff: "DISK_SNAPSHOT_REVERT_POWEROFF",
	DiskSnapshotDeletePoweroff: "DISK_SNAPSHOT_DELETE_POWEROFF", DiskSnapshotSuspended: "DISK_SNAPSHOT_SUSPENDED",
	DiskSnapshotRevertSuspended: "DISK_SNAPSHOT_REVERT_SUSPENDED", DiskSnapshotDeleteSuspended: "DISK_SNAPSHOT_DELETE_SUSPENDED",
	DiskSnapshot: "DISK_SNAPSHOT", DiskSnapshotDelete: "DISK_SNAPSHOT_DELETE",
	PrologMigrateUnknown: "PROLOG_MIGRATE_UNKNOWN", PrologMigrateUnknownFailure: "PROLOG_MIGRATE_UNKNOWN_FAILURE",
	DiskResize: "DISK_RESIZE", DiskResizePoweroff: "DISK_RESIZE_POWEROFF",
	DiskResizeUndeployed: "DISK_RESIZE_UNDEPLOYED", HotplugNicPoweroff: "HOTPLUG_NIC_POWEROFF",
	HotplugResize: "HOTPLUG_RESIZE", HotplugSaveasUndeployed: "HOTPLUG_SAVEAS_UNDEPLOYED",
	HotplugSaveasStopped: "HOTPLUG_SAVEAS_STOPPED", Backup: "BACKUP",
	BackupPoweroff: "BACKUP_POWEROFF", Restore: "RESTORE",
}

// String is OpenNebula's name for the LCM state.
func (s LCMState) String() string {
	if n, ok := lcmNames[s]; ok {
		return n
	}
	return "LCM_STATE_" + strconv.Itoa(int(s))
}

// IsFailure reports an LCM state a failed driver operation leaves the VM
// in (…_FAILURE); the VM stays there until recovered or terminated.
func (s LCMState) IsFailure() bool {
	switch s {
	case BootFailure, BootMigrateFailure, PrologMigrateFailure, PrologFailure,
		EpilogFailure, EpilogStopFailure, EpilogUndeployFailure,
		PrologMigratePoweroffFailure, PrologMigrateSuspendFailure,
		BootUndeployFailure, BootStoppedFailure, PrologResumeFailure,
		PrologUndeployFailure, PrologMigrateUnknownFailure:
		return true
	}
	return false
}

// HostState is a host's state (STATE in the HOST document).
type HostState int

// Host states, with OpenNebula's numbers.
const (
	HostInit                HostState = 0 // enabled, not monitored yet
	HostMonitoringMonitored HostState = 1 // being monitored (was MONITORED)
	HostMonitored           HostState = 2 // monitored and usable
	HostError               HostState = 3 // monitoring failed
	HostDisabled            HostState = 4 // no new VMs
	HostMonitoringError     HostState = 5
	HostMonitoringInit      HostState = 6
	HostMonitoringDisabled  HostState = 7
	HostOffline             HostState = 8 // not monitored, no VMs
)

var hostStateNames = [...]string{
	"INIT", "MONITORING_MONITORED", "MONITORED", "ERROR", "DISABLED",
	"MONITORING_ERROR", "MONITORING_INIT", "MONITORING_DISABLED", "OFFLINE",
}

// String is OpenNebula's name for the host state.
func (s HostState) String() string {
	if s >= 0 && int(s) < len(hostStateNames) {
		return hostStateNames[s]
	}
	return "HOST_STATE_" + strconv.Itoa(int(s))
}

// Values of one.host.status's status parameter.
const (
	HostStatusEnabled  = 0
	HostStatusDisabled = 1
	HostStatusOffline  = 2
)

// Pool filter flags (the "who" parameter of pool info calls).
const (
	PoolWhoPrimaryGroup = -4 // resources of the user's primary group
	PoolWhoMine         = -3 // the user's resources
	PoolWhoAll          = -2 // all resources
	PoolWhoGroup        = -1 // the user's and their groups' resources
)

// VM pool state filters (the "state" parameter of one.vmpool.info):
// a State value, or one of these.
const (
	PoolStateAny     = -2 // every state, DONE included
	PoolStateNotDone = -1 // every state but DONE
)

// Migration types (one.vm.migrate's last parameter).
const (
	MigrateSave         = 0 // save, copy, restore (the classic cold migration)
	MigratePoweroff     = 1 // power off, copy, boot
	MigratePoweroffHard = 2 // power off hard, copy, boot
)

// UpdateType is how one.vm.update applies a template.
type UpdateType int

// Update types (goca: parameters.Replace, parameters.Merge).
const (
	Replace UpdateType = 0 // replace the whole user template
	Merge   UpdateType = 1 // merge into the user template
)

// History record actions (VMActions), the reason a history record ended.
const (
	ActionNone          = 0
	ActionMigrate       = 1
	ActionLiveMigrate   = 2
	ActionSuspend       = 10
	ActionResume        = 11
	ActionTerminate     = 27
	ActionTerminateHard = 28
	ActionDeploy        = 30
)
