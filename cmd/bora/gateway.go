package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bora-sched/bora/gateway"
)

// bora gateway: the gateway daemon in front of several clusters
// (package gateway, docs/models.md §6).

func newGatewayCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gateway",
		Args:  cobra.NoArgs,
		RunE:  groupHelp,
		Short: "the gateway that spreads external leases over several clusters",
	}
	var file string
	serve := &cobra.Command{
		Use:   "serve --config FILE",
		Short: "run the gateway: the lease API of borad, in front of the clusters of FILE",
		Long: `Run the gateway until SIGINT or SIGTERM. It answers the lease API of borad
on its listen address (TLS, its users' tokens), so bora --server works
against it unchanged; each lease goes to a cluster chosen by the policy,
and to the next one when a cluster's admission stage refuses it.
Check the file first with: bora gateway check FILE`,
		Example: "  bora gateway serve --config /etc/bora/gateway.yaml",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file == "" {
				return usage("--config is required")
			}
			c, err := loadGateway(file)
			if err != nil {
				return err
			}
			log := gateway.NewLogger(c)
			log.SetOutput(cmd.ErrOrStderr())
			err = gateway.Serve(cmd.Context(), c, log, nil)
			if errors.Is(err, gateway.ErrConfig) {
				return usageError{err}
			}
			return err
		},
	}
	serve.Flags().StringVar(&file, "config", "", "the gateway's configuration file (see examples/gateway.yaml)")
	check := &cobra.Command{
		Use:   "check FILE",
		Short: "check a gateway configuration file (every key, every value, the files it names) as serve would",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := loadGateway(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (policy %s, %d clusters, listen %s, store %s)\n",
				args[0], c.Policy, len(c.Clusters), c.Listen, c.Store)
			return nil
		},
	}
	cmd.AddCommand(serve, check)
	return cmd
}

// loadGateway reads and checks a gateway file: a bad one is a usage
// error (exit 2).
func loadGateway(file string) (gateway.Config, error) {
	c, err := gateway.Load(file)
	if err == nil {
		err = c.CheckFiles()
		if err != nil {
			err = fmt.Errorf("%s: %w", file, err)
		}
	}
	if err != nil {
		return c, usageError{err}
	}
	return c, nil
}
