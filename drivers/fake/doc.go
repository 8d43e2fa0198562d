// Package fake is an in-memory bora driver for emulation and CI.
//
// A Driver emulates a cluster of hosts and the VMs bora runs on them. Each
// operation takes the time the overhead model (docs/models.md §2, the
// overhead.Params it is given) says, waiting on the injected clock, so
// with a clock.Sim it takes no wall time:
//
//	Start        enactment (or Config.Boot when set), once for the call
//	Suspend      n*t_p + sum t_s (pause every running VM, then save each)
//	Resume       sum t_r + n*t_p (restore each saved VM, then unpause)
//	Migrate      sum t_copy over the images that change host
//	LiveMigrate  sum t_copy (memory copied while the VMs run)
//	Stop         n*t_stop
//	Shutdown     min(grace, Overheads.Shutdown)
//	Cleanup      instant
//
// Only the VMs that need work count: an operation whose VMs are all
// already in the wanted state returns at once (the idempotency that
// drivers.Driver documents). The delta of the model is the scheduler's
// rescheduling time, not the driver's, and is not waited for.
//
// An operation either happens or not: its effect is applied when its time
// has passed, and a cancelled context, an injected failure, a host lost
// meanwhile or a VM that died meanwhile leave every VM as it was.
//
// Beyond the interface, the fake can end leases early (SetRunTime: the
// VMs exit by themselves once they have run that long, emitting
// drivers.VMExited), inject faults (Config.Faults, Inject: failing or slow
// operations, host loss), kill VMs behind bora's back (KillVM) and hold
// VMs that are not bora's (AddForeignVM). With Config.StateFile set, the
// emulated cluster is written to disk after every change and read back by
// New, so it outlives a daemon crash as real VMs would.
//
// Host capacity is not enforced: deciding what fits is the scheduler's job.
package fake
