package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bora-sched/bora/config"
)

// newConfigCmd is `bora config check FILE`: the daemon's own loader, so a
// file it accepts is one borad starts with (and reloads on SIGHUP).
func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Check configuration files"}
	cmd.AddCommand(&cobra.Command{
		Use:   "check FILE",
		Short: "Check a borad configuration file (every key, every value) as the daemon would",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := config.LoadDaemon(args[0])
			if err != nil {
				return usageError{err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (driver %s, %d hosts, store %s, socket %s)\n",
				args[0], c.Driver.Name, len(c.Hosts), c.Daemon.Store, c.API.Socket)
			return nil
		},
	})
	return cmd
}
