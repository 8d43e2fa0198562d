package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/workgen"
	"github.com/bora-sched/bora/workload"
)

// bora workload: the workload generators of docs/workloads.md.

func newWorkloadCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workload",
		Short: "generate synthetic workloads from the models of the source experiments",
	}
	cmd.AddCommand(newWorkloadGenerateCmd(), newWorkloadModelsCmd())
	return cmd
}

type generateFlags struct {
	seed   uint64
	params []string
	output string
	format string
	list   bool
}

func newWorkloadGenerateCmd() *cobra.Command {
	f := &generateFlags{}
	cmd := &cobra.Command{
		Use:   "generate MODEL [--seed N] [--param k=v]... [-o FILE|DIR]",
		Short: "draw a workload from a model (lublin99, das2, gwa-bot, local-grid)",
		Long: `Draw a workload from one of the models of docs/workloads.md and write it in
bora's trace format (YAML or JSON, docs/formats.md §5) or SWF. The same model,
seed and parameters give the same file, byte for byte.

A single-cluster model (lublin99, local-grid) writes one file: -o FILE, or
standard output with -o - or no -o. A multi-cluster model (das2, gwa-bot)
writes a directory, -o DIR: gateway.EXT with the external requests and one
CLUSTER.EXT a cluster with its local requests.

The format follows the file's extension (.yaml, .yml, .json, .swf), else
--format (default yaml; json for a directory). Parameters and their
defaults: bora workload models.`,
		Example: `  bora workload generate lublin99 --seed 1 -o ch3.yaml
  bora workload generate lublin99 --param local_share=0.5 --param local_notice='exp(2h)'
  bora workload generate local-grid --param rho=0.2 --param theta=large -o local.swf
  bora workload generate das2 --seed 3 -o das2/`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runGenerate(cmd, f, args) },
	}
	fl := cmd.Flags()
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the random draws")
	fl.StringArrayVar(&f.params, "param", nil, "set a model parameter, name=value (repeatable)")
	fl.StringVarP(&f.output, "output", "o", "-", "output file, directory (multi-cluster models) or - for standard output")
	fl.StringVar(&f.format, "format", "", "yaml, json or swf (default: from the file's extension, else yaml)")
	fl.BoolVar(&f.list, "list", false, "list the models and their parameters, and exit")
	return cmd
}

func newWorkloadModelsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "models",
		Short: "list the workload models with their parameters and defaults",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return listModels(cmd.OutOrStdout())
		},
	}
}

// listModels prints every model with its parameters, defaults and docs.
func listModels(w io.Writer) error {
	var b bytes.Buffer
	for i, m := range workgen.Models() {
		if i > 0 {
			b.WriteString("\n")
		}
		ps, err := workgen.Params(m)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s\n", m)
		for _, p := range ps {
			fmt.Fprintf(&b, "  %-20s %-14s %s\n", p.Name, p.Default, p.Doc)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func runGenerate(cmd *cobra.Command, f *generateFlags, args []string) error {
	if f.list {
		return listModels(cmd.OutOrStdout())
	}
	if len(args) != 1 {
		return usage("give a model: %s (bora workload models lists them)", strings.Join(workgen.Models(), ", "))
	}
	params := map[string]string{}
	for _, kv := range f.params {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return usage("--param %q: want name=value", kv)
		}
		params[strings.TrimSpace(k)] = v
	}
	w, err := workgen.Generate(args[0], f.seed, params)
	if err != nil {
		if errors.Is(err, workgen.ErrUnknownModel) || errors.Is(err, workgen.ErrUnknownParam) || errors.Is(err, workgen.ErrBadParam) {
			return usageError{err}
		}
		return err
	}
	header := workloadHeader(w)
	if len(w.Clusters) > 0 {
		return writeClusters(f, w, header)
	}
	format, err := outputFormat(f.format, f.output, "yaml")
	if err != nil {
		return err
	}
	if f.output == "-" || f.output == "" {
		return writeRequests(cmd.OutOrStdout(), format, w.Requests, header)
	}
	return writeRequestsFile(f.output, format, w.Requests, header)
}

// outputFormat is --format, else the extension of path, else def.
func outputFormat(format, path, def string) (string, error) {
	if format != "" {
		if !slices.Contains([]string{"yaml", "json", "swf"}, format) {
			return "", usage("--format: unknown format %q (want yaml, json or swf)", format)
		}
		return format, nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return "yaml", nil
	case ".json":
		return "json", nil
	case ".swf":
		return "swf", nil
	}
	return def, nil
}

// workloadHeader says how a file was made, for the comment lines of YAML
// and SWF output.
func workloadHeader(w *workgen.Workload) []string {
	keys := make([]string, 0, len(w.Params))
	for k := range w.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := []string{fmt.Sprintf("bora workload generate %s --seed %d", w.Model, w.Seed)}
	for _, k := range keys {
		h = append(h, fmt.Sprintf("  %s=%s", k, w.Params[k]))
	}
	if w.Hosts > 0 {
		h = append(h, fmt.Sprintf("cluster: %d hosts of %g cores, %d MB", w.Hosts, float64(w.HostCPU)/100, w.HostMemory))
	}
	return h
}

func writeRequests(out io.Writer, format string, reqs []scheduler.Request, header []string) error {
	switch format {
	case "json":
		return workload.WriteJSON(out, reqs)
	case "swf":
		return workload.WriteSWF(out, reqs, header...)
	}
	return workload.WriteYAML(out, reqs, header...)
}

func writeRequestsFile(path, format string, reqs []scheduler.Request, header []string) error {
	var b bytes.Buffer
	if err := writeRequests(&b, format, reqs, header); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return usageError{err}
	}
	return nil
}

// writeClusters writes a multi-cluster workload into the directory -o:
// gateway.EXT and one CLUSTER.EXT a cluster.
func writeClusters(f *generateFlags, w *workgen.Workload, header []string) error {
	if f.output == "-" || f.output == "" {
		return usage("-o: %s makes one file a cluster and one for the gateway: give a directory", w.Model)
	}
	format, err := outputFormat(f.format, "", "json")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.output, 0o755); err != nil {
		return usageError{err}
	}
	if err := writeRequestsFile(filepath.Join(f.output, "gateway."+format), format, w.Requests,
		append(slices.Clone(header), "the gateway's external requests")); err != nil {
		return err
	}
	for _, c := range w.Clusters {
		h := append(slices.Clone(header), fmt.Sprintf("cluster %s: %d hosts of %g cores, %d MB; its local requests",
			c.Name, c.Hosts, float64(c.HostCPU)/100, c.HostMemory))
		if err := writeRequestsFile(filepath.Join(f.output, c.Name+"."+format), format, c.Requests, h); err != nil {
			return err
		}
	}
	return nil
}
