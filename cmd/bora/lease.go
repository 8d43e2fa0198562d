package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/scheduler"
)

// rejectedError is a lease the daemon created in the rejected state: the
// call worked, the answer is no (exit code exitRejected). A lease of ID
// 0 is a dry run's answer (dryrun.go): no lease was made.
type rejectedError struct{ lease api.Lease }

func (e rejectedError) Error() string {
	msg := fmt.Sprintf("lease %d rejected", e.lease.ID)
	if e.lease.ID == 0 {
		msg = "the lease would be rejected"
	}
	if e.lease.Reason == string(scheduler.ReasonAdmissionLimit) && e.lease.Detail != "" {
		// As the admission stage writes it (docs/models.md §4).
		return msg + ": " + e.lease.Reason + ": " + e.lease.Detail
	}
	if e.lease.Reason != "" {
		msg += ": " + e.lease.Reason
	}
	if e.lease.Detail != "" {
		msg += " (" + e.lease.Detail + ")"
	}
	return msg
}

func newLeaseCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lease",
		Args:  cobra.NoArgs, // an unknown subcommand is an error, not help
		RunE:  groupHelp,
		Short: "create, list, show and act on leases",
	}
	c.addOutputFlag(cmd.PersistentFlags())
	cmd.AddCommand(newLeaseCreateCmd(c), newLeaseListCmd(c), newLeaseShowCmd(c), newLeaseCancelCmd(c))
	for _, a := range []struct{ name, short string }{
		{"suspend", "suspend a lease's VMs (admin)"},
		{"resume", "resume a suspended lease (admin)"},
		{"migrate", "migrate a lease's VMs to other hosts (admin)"},
	} {
		cmd.AddCommand(newLeaseActionCmd(c, a.name, a.short))
	}
	return cmd
}

type leaseFlags struct {
	req  api.LeaseRequest
	file string
	dry  bool // --dry-run (dryrun.go)
}

func newLeaseCreateCmd(c *cli) *cobra.Command {
	f := &leaseFlags{}
	cmd := &cobra.Command{
		Use:   "create [FILE] [flags]",
		Short: "ask for a lease",
		Long: `Ask for a lease: from FILE (JSON or YAML with the keys of the API's lease
request; "-" reads stdin), from flags, or both (flags override the file).

A lease the daemon rejects (too large for the cluster, no room before its
deadline, a start that has passed) is printed with the reason and the
command exits with code 3.

With --dry-run nothing is created: the command prints where and when the
lease would run if it were submitted now, or why it would be rejected
(then it exits as for a rejected lease).

A local lease (the default origin) is always non-preemptable; an external
lease is suspendable unless --class says otherwise.`,
		Example: `  bora lease create --vms 4 --cpu 2 --memory 4096 --image debian --duration 2h
  bora lease create --vms 1 --duration 30m --start "2030-01-02 09:00" --class non-preemptable
  bora lease create --vms 8 --duration 90m --deadline +6h
  bora lease create lease.yaml -o json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				f.file = args[0]
			}
			return runLeaseCreate(cmd, c, f)
		},
	}
	fl := cmd.Flags()
	r := &f.req
	fl.StringVar(&r.Name, "name", "", "a name for the lease")
	fl.IntVar(&r.VMs, "vms", 1, "number of VMs")
	fl.Float64Var(&r.CPU, "cpu", 0, "cores per VM (default 1)")
	fl.Int64Var(&r.Memory, "memory", 0, "MB per VM (default 1024)")
	fl.StringVar(&r.Image, "image", "", "disk image or template of the VMs")
	fl.StringVar(&r.Duration, "duration", "", "run time: 90m, 2h, 01:30:00 (required without FILE)")
	fl.StringVar(&r.Start, "start", "", "best-effort (default), now, a time (\"2030-01-02 09:00\" local, or RFC 3339) or +DURATION: an advance reservation")
	fl.StringVar(&r.NotBefore, "not-before", "", "earliest start of a best-effort or deadline lease (time or +DURATION)")
	fl.StringVar(&r.Deadline, "deadline", "", "latest end (time or +DURATION): makes a deadline lease")
	fl.StringVar(&r.Class, "class", "", "local leases: non-preemptable (the default and only class); external: cancellable, suspendable (default), migratable or non-preemptable")
	fl.StringVar(&r.Origin, "origin", "", "local (default) or external (needs an external or admin token)")
	fl.StringVar(&r.RealDuration, "real-duration", "", "emulation: how long the VMs really run before ending by themselves")
	fl.BoolVar(&f.dry, "dry-run", false, "only say where and when the lease would run (or why it would be rejected): nothing is created")
	return cmd
}

func runLeaseCreate(cmd *cobra.Command, c *cli, f *leaseFlags) error {
	req, err := leaseRequest(cmd, c, f)
	if err != nil {
		return err
	}
	if f.dry {
		return runLeaseDryRun(cmd, c, req) // dryrun.go
	}
	cl, err := c.client()
	if err != nil {
		return err
	}
	l, err := cl.CreateLease(cmd.Context(), req)
	if err != nil {
		return err
	}
	err = c.print(cmd.OutOrStdout(), l, func(w io.Writer) error {
		tw := newTable(w)
		if l.State == "rejected" {
			row(tw, "ID", "STATE", "REASON", "DETAIL")
			row(tw, l.ID, l.State, dash(l.Reason), dash(l.Detail))
		} else {
			row(tw, "ID", "STATE", "START", "END", "HOSTS")
			row(tw, l.ID, l.State, c.when(l.Start), c.when(leaseEnd(l)), list(unique(l.Hosts), 3))
		}
		return tw.Flush()
	})
	if err != nil {
		return err
	}
	if l.State == "rejected" {
		return rejectedError{l}
	}
	return nil
}

// leaseRequest builds the request from FILE, then the flags given.
func leaseRequest(cmd *cobra.Command, c *cli, f *leaseFlags) (api.LeaseRequest, error) {
	if f.file == "" {
		if f.req.Duration == "" {
			return api.LeaseRequest{}, usage("--duration is required (or give a FILE)")
		}
		req := f.req
		fixTimes(c, &req)
		return req, nil
	}
	b, err := readInput(cmd, f.file)
	if err != nil {
		return api.LeaseRequest{}, err
	}
	var req api.LeaseRequest
	if err := decodeStrict(b, &req); err != nil {
		return api.LeaseRequest{}, usage("%s: %v", f.file, err)
	}
	fl := cmd.Flags()
	set := func(name string, dst *string, v string) {
		if fl.Changed(name) {
			*dst = v
		}
	}
	set("name", &req.Name, f.req.Name)
	set("image", &req.Image, f.req.Image)
	set("duration", &req.Duration, f.req.Duration)
	set("start", &req.Start, f.req.Start)
	set("not-before", &req.NotBefore, f.req.NotBefore)
	set("deadline", &req.Deadline, f.req.Deadline)
	set("class", &req.Class, f.req.Class)
	set("origin", &req.Origin, f.req.Origin)
	set("real-duration", &req.RealDuration, f.req.RealDuration)
	if fl.Changed("vms") {
		req.VMs = f.req.VMs
	}
	if fl.Changed("cpu") {
		req.CPU = f.req.CPU
	}
	if fl.Changed("memory") {
		req.Memory = f.req.Memory
	}
	fixTimes(c, &req)
	return req, nil
}

// fixTimes turns local times people type into RFC 3339.
func fixTimes(c *cli, r *api.LeaseRequest) {
	r.Start = c.localTime(r.Start)
	r.NotBefore = c.localTime(r.NotBefore)
	r.Deadline = c.localTime(r.Deadline)
}

func newLeaseListCmd(c *cli) *cobra.Command {
	var flt api.LeaseFilter
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "list leases (yours, or all for an admin)",
		Args:    cobra.NoArgs,
		RunE: ask(c, func(ctx context.Context, cl *api.Client, _ []string) ([]api.Lease, error) {
			return cl.ListLeases(ctx, flt)
		}, c.leaseTable),
	}
	cmd.Flags().StringVar(&flt.State, "state", "", "only leases in this state (pending, scheduled, running, ...)")
	cmd.Flags().StringVar(&flt.User, "user", "", "only this user's leases")
	return cmd
}

func (c *cli) leaseTable(w io.Writer, ls []api.Lease) error {
	tw := newTable(w)
	row(tw, "ID", "USER", "NAME", "KIND", "CLASS", "ORIGIN", "STATE", "VMS", "START", "END", "HOSTS")
	for _, l := range ls {
		row(tw, l.ID, l.User, dash(l.Name), l.Kind, l.Class, l.Origin, l.State, l.VMs,
			c.when(l.Start), c.when(leaseEnd(l)), list(unique(l.Hosts), 3))
	}
	return tw.Flush()
}

// leaseEnd is when the lease ended, or else when its plan ends.
func leaseEnd(l api.Lease) *time.Time {
	if l.End != nil {
		return l.End
	}
	var end *time.Time
	for i := range l.Plan {
		if end == nil || l.Plan[i].End.After(*end) {
			end = &l.Plan[i].End
		}
	}
	return end
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// leaseID reads the ID argument.
func leaseID(arg string) (uint64, error) {
	id, err := strconv.ParseUint(arg, 10, 64)
	if err != nil {
		return 0, usage("%q is not a lease id (want a number, see bora lease list)", arg)
	}
	return id, nil
}

func newLeaseShowCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "show a lease: its request, plan and history",
		Args:  cobra.ExactArgs(1),
		RunE: ask(c, func(ctx context.Context, cl *api.Client, args []string) (api.Lease, error) {
			id, err := leaseID(args[0])
			if err != nil {
				return api.Lease{}, err
			}
			return cl.GetLease(ctx, id)
		}, c.showLease),
	}
}

func (c *cli) showLease(w io.Writer, l api.Lease) error {
	tw := newTable(w)
	kv := func(k string, v any) { row(tw, k+":", v) }
	kv("ID", l.ID)
	kv("Name", dash(l.Name))
	kv("User", l.User)
	kv("Kind", l.Kind)
	kv("Class", l.Class)
	kv("Origin", l.Origin)
	if l.Cluster != "" {
		kv("Cluster", l.Cluster) // a gateway answers
	}
	kv("State", l.State)
	if l.Reason != "" || l.Detail != "" {
		kv("Reason", strings.TrimSpace(l.Reason+" "+parens(l.Detail)))
	}
	kv("VMs", fmt.Sprintf("%d x (%g cpu, %s)", l.VMs, l.CPU, memory(l.Memory)))
	kv("Image", dash(l.Image))
	kv("Submitted", c.when(&l.Submitted))
	kv("Start", c.when(l.Start))
	kv("End", c.when(leaseEnd(l)))
	if l.Deadline != nil {
		missed := ""
		if l.DeadlineMissed {
			missed = " (missed)"
		}
		kv("Deadline", c.when(l.Deadline)+missed)
	}
	kv("Duration", human(seconds(l.DurationS)))
	if everRan(l) {
		kv("Remaining", human(seconds(l.RemainingS)))
	}
	kv("Hosts", list(unique(l.Hosts), 8))
	kv("Preemptions", l.Preemptions)
	kv("Migrations", l.Migrations)
	kv("Overhead", human(seconds(l.OverheadS)))
	if len(l.DriverIDs) > 0 {
		kv("Driver IDs", strings.Join(l.DriverIDs, ","))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range l.EnactmentErrors {
		fmt.Fprintf(w, "Enactment error: %s\n", printable(e))
	}
	if len(l.Plan) > 0 {
		fmt.Fprintln(w, "\nPLAN")
		tw = newTable(w)
		row(tw, "KIND", "START", "END", "DURATION", "HOSTS")
		for _, p := range l.Plan {
			row(tw, p.Kind, c.when(&p.Start), c.when(&p.End), human(p.End.Sub(p.Start)), list(p.Hosts, 8))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(l.History) > 0 {
		fmt.Fprintln(w, "\nHISTORY")
		tw = newTable(w)
		row(tw, "TIME", "STATE", "REASON", "DETAIL")
		for _, e := range l.History {
			row(tw, c.when(&e.At), e.State, dash(e.Reason), dash(e.Detail))
		}
		return tw.Flush()
	}
	return nil
}

// everRan says whether a lease's VMs ever started (its history has them
// preparing or running): Remaining means nothing for one that never did.
// A lease shown without its history counts as having run.
func everRan(l api.Lease) bool {
	if len(l.History) == 0 {
		return true
	}
	for _, e := range l.History {
		if e.State == "preparing" || e.State == "running" {
			return true
		}
	}
	return false
}

func parens(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

func newLeaseCancelCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "cancel ID",
		Short: "cancel a lease (yours, or any for an admin)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.leaseAction(cmd, args[0], "cancel")
		},
	}
}

func newLeaseActionCmd(c *cli, action, short string) *cobra.Command {
	return &cobra.Command{
		Use:   action + " ID",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.leaseAction(cmd, args[0], action)
		},
	}
}

func (c *cli) leaseAction(cmd *cobra.Command, arg, action string) error {
	id, err := leaseID(arg)
	if err != nil {
		return err
	}
	cl, err := c.client()
	if err != nil {
		return err
	}
	var l api.Lease
	if action == "cancel" {
		l, err = cl.CancelLease(cmd.Context(), id)
	} else {
		l, err = cl.LeaseAction(cmd.Context(), id, action)
	}
	if err != nil {
		return err
	}
	return c.print(cmd.OutOrStdout(), l, func(w io.Writer) error {
		tw := newTable(w)
		row(tw, "ID", "NAME", "STATE", "HOSTS")
		row(tw, l.ID, dash(l.Name), l.State, list(unique(l.Hosts), 3))
		return tw.Flush()
	})
}
