package main

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/bora-sched/bora/api"
)

func newHostCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "host",
		Args:  cobra.NoArgs, // an unknown subcommand is an error, not help
		RunE:  groupHelp,
		Short: "list, show and manage hosts",
	}
	c.addOutputFlag(cmd.PersistentFlags())
	cmd.AddCommand(newHostListCmd(c), newHostShowCmd(c))
	for _, a := range []struct{ name, short string }{
		{"enable", "let the scheduler place leases on a host (admin)"},
		{"disable", "keep the scheduler from placing new leases on a host (admin)"},
		{"on", "switch a host on (admin)"},
		{"off", "switch a host off (admin)"},
	} {
		cmd.AddCommand(newHostActionCmd(c, a.name, a.short))
	}
	return cmd
}

func newHostListCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "list the hosts with their power state and what is reserved on them now",
		Args:    cobra.NoArgs,
		RunE: ask(c, func(ctx context.Context, cl *api.Client, _ []string) ([]api.Host, error) {
			return cl.ListHosts(ctx)
		}, hostTable),
	}
}

func hostTable(w io.Writer, hs []api.Host) error {
	tw := newTable(w)
	row(tw, "NAME", "POWER", "ENABLED", "UP", "CPU", "USED_CPU", "MEM", "USED_MEM", "LEASES")
	for _, h := range hs {
		row(tw, h.Name, h.Power, yesNo(h.Enabled), yesNo(h.Up), fmt.Sprintf("%g", h.CPU), fmt.Sprintf("%g", h.UsedCPU),
			memory(h.Memory), memory(h.UsedMemory), hostLeases(h, 5))
	}
	return tw.Flush()
}

// hostLeases lists up to max of the host's lease ids, then the other
// users' leases that api.private_data hides: "3,7,2 busy".
func hostLeases(h api.Host, max int) string {
	s := list(leaseIDs(h.Leases), max)
	switch {
	case h.Busy == 0:
		return s
	case len(h.Leases) == 0:
		return fmt.Sprintf("%d busy", h.Busy)
	}
	return fmt.Sprintf("%s,%d busy", s, h.Busy)
}

func leaseIDs(ids []uint64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatUint(id, 10)
	}
	return out
}

func newHostShowCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME",
		Short: "show a host",
		Args:  cobra.ExactArgs(1),
		RunE: ask(c, func(ctx context.Context, cl *api.Client, args []string) (api.Host, error) {
			return cl.GetHost(ctx, args[0])
		}, showHost),
	}
}

func showHost(w io.Writer, h api.Host) error {
	tw := newTable(w)
	kv := func(k string, v any) { row(tw, k+":", v) }
	kv("Name", h.Name)
	kv("Power", h.Power)
	kv("Enabled", yesNo(h.Enabled))
	kv("Up", yesNo(h.Up))
	kv("CPU", fmt.Sprintf("%g cores, %g used (%s)", h.CPU, h.UsedCPU, percent(h.UsedCPU, h.CPU)))
	kv("Memory", fmt.Sprintf("%s, %s used (%s)", memory(h.Memory), memory(h.UsedMemory), percent(float64(h.UsedMemory), float64(h.Memory))))
	kv("Leases", hostLeases(h, 20))
	kv("Energy", fmt.Sprintf("%.3f kWh", h.EnergyKWh))
	kv("Availability", availabilityText(h))
	if h.PowerError != "" {
		kv("Power error", h.PowerError)
	}
	return tw.Flush()
}

// availabilityText is a host's availability estimate (docs/models.md §4)
// and the periods of use it comes from: "0.667 (1 period)".
func availabilityText(h api.Host) string {
	unit := "periods"
	if h.AvailabilityPeriods == 1 {
		unit = "period"
	}
	return fmt.Sprintf("%.3f (%d %s)", h.Availability, h.AvailabilityPeriods, unit)
}

func percent(part, whole float64) string {
	if whole == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*part/whole)
}

func newHostActionCmd(c *cli, action, short string) *cobra.Command {
	return &cobra.Command{
		Use:   action + " NAME",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: ask(c, func(ctx context.Context, cl *api.Client, args []string) (api.Host, error) {
			return cl.HostAction(ctx, args[0], action)
		}, func(w io.Writer, h api.Host) error { return hostTable(w, []api.Host{h}) }),
	}
}
