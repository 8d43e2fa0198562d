package main

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/spf13/cobra"

	"github.com/bora-sched/bora/api"
)

func newStatsCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "show the daemon's counters: leases by state, preemptions, utilisation, energy",
		Args:  cobra.NoArgs,
		RunE: ask(c, func(ctx context.Context, cl *api.Client, _ []string) (api.Stats, error) {
			return cl.Stats(ctx)
		}, c.showStats),
	}
	c.addOutputFlag(cmd.Flags())
	return cmd
}

func (c *cli) showStats(w io.Writer, st api.Stats) error {
	tw := newTable(w)
	kv := func(k string, v any) { row(tw, k+":", v) }
	kv("Now", c.when(&st.Now))
	kv("Started", fmt.Sprintf("%s (up %s)", c.when(&st.Started), human(st.Now.Sub(st.Started))))
	states := make([]string, 0, len(st.Leases))
	total := 0
	for s, n := range st.Leases {
		states = append(states, s)
		total += n
	}
	sort.Strings(states)
	kv("Leases", total)
	for _, s := range states {
		row(tw, "  "+s+":", st.Leases[s])
	}
	kv("Queue", st.Queue)
	kv("Rejected", st.Rejected)
	kv("Preemptions", fmt.Sprintf("%d (%d VMs)", st.Preemptions, st.PreemptedVMs))
	kv("Overhead", human(seconds(st.OverheadS)))
	kv("Hosts", fmt.Sprintf("%d, %d on", st.Hosts, st.HostsOn))
	kv("Utilisation", fmt.Sprintf("%.1f%%", 100*st.Utilisation))
	kv("Energy", fmt.Sprintf("%.3f kWh", st.EnergyKWh))
	kv("Wait over threshold", fmt.Sprintf("%.1f%%", 100*st.ViolationRate))
	kv("Decisions", st.Decisions)
	if st.Admission != nil {
		showAdmissionRows(tw, *st.Admission) // admission.go
	}
	return tw.Flush()
}
