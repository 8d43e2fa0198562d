package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/bora-sched/bora/api"
)

// runLeaseDryRun is `bora lease create --dry-run`: the daemon's plan for
// the request (POST /v1/leases?dry_run=true), printed; a plan that says
// no exits as a rejected lease does.
func runLeaseDryRun(cmd *cobra.Command, c *cli, req api.LeaseRequest) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	p, err := cl.DryRunLease(cmd.Context(), req)
	if err != nil {
		return err
	}
	err = c.print(cmd.OutOrStdout(), p, func(w io.Writer) error {
		tw := newTable(w)
		if p.State == "rejected" {
			row(tw, "STATE", "REASON", "DETAIL")
			row(tw, p.State, dash(p.Reason), dash(p.Detail))
		} else {
			row(tw, "STATE", "START", "END", "HOSTS")
			row(tw, p.State, c.when(&p.Start), c.when(&p.End), list(p.Hosts, 3))
		}
		return tw.Flush()
	})
	if err != nil {
		return err
	}
	if p.State == "rejected" {
		return rejectedError{api.Lease{State: p.State, Reason: p.Reason, Detail: p.Detail}} // ID 0: a dry run
	}
	return nil
}
