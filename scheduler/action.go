package scheduler

import (
	"time"

	"github.com/bora-sched/bora/slottable"
)

// ActionOp is what the enactment side (a driver, or the simulator) must do.
type ActionOp string

// The actions the scheduler asks for.
const (
	ActStart    ActionOp = "start"    // create and boot the lease's VMs on Hosts
	ActRun      ActionOp = "run"      // the VMs compute from now (after start or resume)
	ActSuspend  ActionOp = "suspend"  // pause the VMs and save their memory to shared storage
	ActMigrate  ActionOp = "migrate"  // copy the saved images from From to Hosts
	ActResume   ActionOp = "resume"   // restore the saved VMs on Hosts and unpause them
	ActStop     ActionOp = "stop"     // stop the VMs at once (cancellation)
	ActShutdown ActionOp = "shutdown" // shut the VMs down after their run
	ActDone     ActionOp = "done"     // the lease is over; clean up what is left of it
)

// Action is one thing to enact for a lease.
type Action struct {
	Op    ActionOp
	At    time.Time
	Lease LeaseID
	Hosts []slottable.HostID // one per VM
	From  []slottable.HostID // migrate: where the VMs were
	Until time.Time          // when the reservation behind the action ends
}
