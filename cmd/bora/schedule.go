package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/bora-sched/bora/api"
)

type scheduleFlags struct {
	from, to, svg string
	width         int
}

func newScheduleCmd(c *cli) *cobra.Command {
	f := &scheduleFlags{}
	cmd := &cobra.Command{
		Use:   "schedule",
		Short: "draw the slot table as a Gantt chart (terminal, or SVG)",
		Long: `Draw the daemon's slot table between --from and --to: one row per host (more
when leases share it), time across. Each lease's run is drawn with its letter
and its id; the operations around it (prepare, suspend, resume, migrate,
shutdown, stop) with their own marks, explained in the legend.

--from and --to are times ("2030-01-02 09:00" local, or RFC 3339), "now", or
durations from the daemon's now ("-1h", "+24h"); by default the daemon shows
from an hour ago to a day ahead.`,
		Example: `  bora schedule
  bora schedule --from -30m --to +6h --width 120
  bora schedule --svg schedule.svg
  bora schedule -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSchedule(cmd, c, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "start of the window (time, now, or -DURATION; default now-1h)")
	fl.StringVar(&f.to, "to", "", "end of the window (time, now, or +DURATION; default now+24h)")
	fl.IntVar(&f.width, "width", 0, "at most this many columns of time, each a round duration (default: fit $COLUMNS, else 100 wide)")
	fl.StringVar(&f.svg, "svg", "", "also write the chart as SVG to this file")
	c.addOutputFlag(fl)
	return cmd
}

func runSchedule(cmd *cobra.Command, c *cli, f *scheduleFlags) error {
	if f.width < 0 || (f.width > 0 && f.width < 10) {
		return usage("--width %d: want at least 10 columns", f.width)
	}
	cl, err := c.client()
	if err != nil {
		return err
	}
	s, err := cl.Schedule(cmd.Context(), c.localTime(f.from), c.localTime(f.to))
	if err != nil {
		return err
	}
	if s.Clamped != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "bora: note: the daemon clamped the window: %s\n", printable(s.Clamped.Reason))
	}
	var leases map[uint64]api.Lease
	if f.svg != "" || c.output == "table" {
		leases = legendLeases(cmd.Context(), cl)
	}
	if f.svg != "" {
		if err := writeSVGFile(f.svg, s, leases, c); err != nil {
			return err
		}
	}
	return c.print(cmd.OutOrStdout(), s, func(w io.Writer) error {
		return writeGantt(w, s, leases, c.chartWidth(f.width, s), c.loc)
	})
}

// legendLeases are the leases the caller may see, to name them in the
// legend; without them the legend shows ids only.
func legendLeases(ctx context.Context, cl *api.Client) map[uint64]api.Lease {
	ls, err := cl.ListLeases(ctx, api.LeaseFilter{})
	if err != nil {
		return nil
	}
	m := make(map[uint64]api.Lease, len(ls))
	for _, l := range ls {
		m[l.ID] = l
	}
	return m
}

// chartWidth is --width, or what fits in $COLUMNS next to the host names.
func (c *cli) chartWidth(width int, s api.Schedule) int {
	if width > 0 {
		return width
	}
	total := 100
	if n, err := strconv.Atoi(c.getenv("COLUMNS")); err == nil && n > 0 {
		total = n
	}
	nameW := len("HOST")
	for _, h := range s.Hosts {
		nameW = max(nameW, min(len(h), 20))
	}
	return max(total-nameW-3, 10)
}

func writeSVGFile(path string, s api.Schedule, leases map[uint64]api.Lease, c *cli) error {
	f, err := os.Create(path)
	if err != nil {
		return usageError{err}
	}
	bw := bufio.NewWriter(f)
	err = writeSVG(bw, s, leases, c.loc)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
