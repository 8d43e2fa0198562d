package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/bora-sched/bora/federation"
	"github.com/bora-sched/bora/report"
)

// federationFlags are the flags of a single-cluster run that a
// federation file replaces.
var federationFlags = []string{"trace", "inject", "config", "hosts", "host-cpu", "host-memory", "policy", "backfilling",
	"energy", "admission", "waiting-factor", "suspend-rate", "resume-rate", "storage", "set"}

// runFederation is bora simulate --federation: the file's clusters
// behind its gateway, once per policy of --gateway (the file's when not
// given), in parallel.
func runFederation(cmd *cobra.Command, f *simulateFlags) error {
	for _, name := range federationFlags {
		if cmd.Flags().Changed(name) {
			return usage("--%s does not go with --federation: the federation file sets the clusters and their configuration (docs/formats.md, \"Federation files\")", name)
		}
	}
	if f.output != "table" && f.output != "json" && f.output != "yaml" {
		return usage("-o: unknown output %q (want table, json or yaml)", f.output)
	}
	file, err := federation.Load(f.federation)
	if err != nil {
		return usageError{err}
	}
	policies := []string{file.Gateway.Policy}
	if f.gateways != "" {
		if err := federation.CheckPolicies(f.gateways); err != nil {
			return usage("--gateway: %v", err)
		}
		policies = nil
		for _, p := range federation.Policies(f.gateways) {
			policies = append(policies, string(p))
		}
	}
	reqs, err := file.Requests(federation.Overrides{}) // drawn and read once for every policy
	if err != nil {
		return usageError{err}
	}
	setups := make([]federation.Setup, len(policies))
	for i, p := range policies {
		if setups[i], err = file.SetupFrom(p, reqs, federation.Overrides{}); err != nil {
			return usageError{err}
		}
	}
	reports := make([]*report.Report, len(setups))
	clusters := make([][]*report.Report, len(setups))
	errs := make([]error, len(setups))
	var wg sync.WaitGroup
	for i := range setups {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			reports[i], clusters[i], errs[i] = federation.RunClusters(cmd.Context(), setups[i])
		}(i)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if f.reportDir != "" {
		if err := report.WriteFederationDir(f.reportDir, reports, clusters); err != nil {
			return err
		}
	}
	if f.output == "table" {
		return writeFederationTable(cmd.OutOrStdout(), reports)
	}
	return writeReports(cmd.OutOrStdout(), f.output, reports)
}

// writeFederationTable writes, for each run, the overall metrics and
// each cluster's as columns ("pap-rtdp", "pap-rtdp C64"...), then what
// the gateway did.
func writeFederationTable(w io.Writer, reports []*report.Report) error {
	var cols []*report.Report
	for _, r := range reports {
		cols = append(cols, r)
		for _, c := range r.Clusters {
			cols = append(cols, &report.Report{Name: r.Name + " " + c.Name, Hosts: c.Cluster.Hosts, Cluster: c.Cluster, Metrics: c.Metrics})
		}
	}
	if err := report.WriteTable(w, cols...); err != nil {
		return err
	}
	for _, r := range reports {
		g := r.Gateway
		var why []string
		for _, k := range slices.Sorted(maps.Keys(g.Rejections)) {
			why = append(why, fmt.Sprintf("%s %d", k, g.Rejections[k]))
		}
		line := fmt.Sprintf("\ngateway %s: %d external leases, %d rejected at the gateway", g.Policy, g.External, g.Rejected)
		if len(why) > 0 {
			line += " (" + strings.Join(why, ", ") + ")"
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
		for _, c := range r.Clusters {
			if _, err := fmt.Fprintf(w, "  %-6s tried %d, placed %d, refused by admission %d, rejected by the scheduler %d\n",
				c.Name, c.Tried, c.Placed, c.Refused, c.Rejected); err != nil {
				return err
			}
		}
	}
	return nil
}
