package main

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/bora-sched/bora/config"
	"github.com/bora-sched/bora/sim"
	"github.com/bora-sched/bora/workload"
)

// The sources of a simulated cluster (report.Cluster.Source).
const (
	fromSite      = "site"       // the trace's LWF <site>
	fromFlags     = "flags"      // --hosts, --host-cpu, --host-memory, --set cluster.*
	fromSiteFlags = "site+flags" // flags overriding part of a site
	fromConfig    = "config"     // the config file's cluster section
	fromDefault   = "default"    // config.Default's 144 hosts
)

// clusterFields are the settings of the cluster's shape that flags may
// set, by config key.
var clusterFields = []string{"cluster.hosts", "cluster.cpu", "cluster.memory"}

// clusterFlags are the flags of clusterFields.
var clusterFlags = []string{"--hosts", "--host-cpu", "--host-memory"}

// simCluster is the cluster a simulation runs on, and where it came from.
// cfg is the config with the flags applied, set the cluster keys the
// flags (or --set) gave (each with the flag as written, for warnings),
// fileSet whether the config file changed the
// cluster section. A site (the trace's LWF <site>) is used unless flags
// override it, field by field: a flag beats the site, the site beats the
// config file. Each override is warned about on warn, naming both. A site
// whose node-sets differ is refused unless --host-cpu and --host-memory
// both say what each host has: bora simulates identical hosts.
func simCluster(cfg config.Config, set map[string]string, fileSet bool, site *workload.Site, trace string, warn io.Writer) (sim.Cluster, string, error) {
	c := cfg.Cluster
	flags := 0
	for _, k := range clusterFields {
		if set[k] != "" {
			flags++
		}
	}
	if site == nil {
		switch {
		case flags > 0:
			return c, fromFlags, nil
		case fileSet:
			return c, fromConfig, nil
		}
		return c, fromDefault, nil
	}
	fromSiteShape, err := siteShape(site, c, set, trace)
	if err != nil {
		return c, "", err
	}
	if flags > 0 {
		var over []string
		for _, k := range clusterFields {
			if set[k] != "" {
				over = append(over, set[k])
			}
		}
		verb := "override"
		if len(over) == 1 {
			verb = "overrides"
		}
		fmt.Fprintf(warn, "bora: warning: %s %s the site of %s (%s)\n", strings.Join(over, ", "), verb, trace, describeSite(site))
	} else if fileSet && fromSiteShape != c {
		fmt.Fprintf(warn, "bora: warning: the site of %s (%s) replaces the config file's cluster (%s)\n", trace, describeSite(site), describeShape(c))
	}
	switch flags {
	case 0:
		return fromSiteShape, fromSite, nil
	case len(clusterFields):
		return c, fromFlags, nil
	}
	return fromSiteShape, fromSiteFlags, nil
}

// siteShape is the site as a sim.Cluster, with the fields the flags set
// taken from c instead. A node-set that gives no CPU or memory amount has
// the configured one.
func siteShape(site *workload.Site, c sim.Cluster, set map[string]string, trace string) (sim.Cluster, error) {
	out := c
	if set["cluster.hosts"] == "" {
		out.Hosts = site.Hosts
	}
	if set["cluster.cpu"] != "" && set["cluster.memory"] != "" {
		return out, nil
	}
	first := true
	for _, ns := range site.NodeSets {
		cpu, mem := cmp.Or(ns.CPU, c.CPU), cmp.Or(ns.Memory, c.Memory)
		if set["cluster.cpu"] != "" {
			cpu = c.CPU
		}
		if set["cluster.memory"] != "" {
			mem = c.Memory
		}
		if !first && (cpu != out.CPU || mem != out.Memory) {
			return c, usage("%s: the site's hosts are not all alike (%s) and bora simulates identical hosts: give --host-cpu and --host-memory (and --hosts) for the cluster to use", trace, describeSite(site))
		}
		out.CPU, out.Memory, first = cpu, mem, false
	}
	return out, nil
}

// cores is hundredths of a core as cores: 100 is "1", 150 "1.5".
func cores(cpu int64) string { return fmt.Sprint(float64(cpu) / 100) }

func describeShape(c sim.Cluster) string {
	return fmt.Sprintf("%d hosts of %s cores, %d MB", c.Hosts, cores(c.CPU), c.Memory)
}

// describeSite lists a site's node-sets: "4 hosts of 1 cores, 1024 MB; 2
// hosts of 2 cores, 2048 MB" ("?" for an amount the file leaves out).
func describeSite(s *workload.Site) string {
	parts := make([]string, len(s.NodeSets))
	amount := func(v int64, f func(int64) string) string {
		if v <= 0 {
			return "?"
		}
		return f(v)
	}
	for i, ns := range s.NodeSets {
		parts[i] = fmt.Sprintf("%d hosts of %s cores, %s MB", ns.Hosts, amount(ns.CPU, cores), amount(ns.Memory, func(v int64) string { return fmt.Sprint(v) }))
	}
	return strings.Join(parts, "; ")
}
