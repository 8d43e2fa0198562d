package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bora-sched/bora/admission"
	"github.com/bora-sched/bora/api"
)

// bora admission: the daemon's admission stage of external leases
// (docs/models.md §4).

func newAdmissionCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "admission",
		Short: "the admission stage of external leases (admission.policy)",
	}
	explain := &cobra.Command{
		Use:   "explain",
		Short: "show how the admission limit comes out: the inputs, E(R_K) for K = 1..K*+1 and the threshold D",
		Args:  cobra.NoArgs,
		RunE: ask(c, func(ctx context.Context, cl *api.Client, _ []string) (api.Admission, error) {
			return cl.Admission(ctx)
		}, showAdmissionExplain),
	}
	c.addOutputFlag(explain.Flags())
	cmd.AddCommand(explain)
	return cmd
}

// limitText is the limit as stats and explain show it.
func limitText(a api.Admission) string {
	if a.Limit == nil {
		if !a.Warm && a.Policy != string(admission.AcceptAll) {
			return "none (warming up)"
		}
		return "none"
	}
	s := fmt.Sprint(*a.Limit)
	switch {
	case a.Capped:
		s += " (capped)"
	case a.Saturated:
		s += " (the local load saturates the cluster)"
	}
	return s
}

// thresholdText is D, or why it is not known.
func thresholdText(d float64) string {
	if d <= 0 {
		return "not known yet"
	}
	return admission.FormatSeconds(d) + " s"
}

// showAdmissionRows writes the stage's state as rows of tw (bora stats
// and bora admission explain).
func showAdmissionRows(tw io.Writer, a api.Admission) {
	kv := func(k string, v any) { row(tw, k+":", v) }
	kv("Admission policy", a.Policy)
	kv("Admission limit", limitText(a))
	kv("Admitted external", a.Admitted)
	kv("Threshold D", thresholdText(a.ThresholdS))
	in := a.Inputs
	kv("Local arrivals", fmt.Sprintf("%.6g/s", in.LocalRate))
	kv("Local service", fmt.Sprintf("mean %s s, cv %.3g", admission.FormatSeconds(in.LocalServiceMeanS), in.LocalCV))
	kv("External arrivals", fmt.Sprintf("%.6g/s", in.ExternalRate))
	kv("External service", fmt.Sprintf("mean %s s (run %s s)", admission.FormatSeconds(in.ExternalMeanS), admission.FormatSeconds(in.ExternalRunS)))
	kinds := make([]string, 0, len(a.Observations))
	for k := range a.Observations {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	obs := make([]string, 0, len(kinds))
	for _, k := range kinds {
		obs = append(obs, fmt.Sprintf("%s %d", k, a.Observations[k]))
	}
	kv("Observations", fmt.Sprintf("%s over %s s", strings.Join(obs, ", "), admission.FormatSeconds(a.SpanS)))
	kv("History", fmt.Sprintf("%d observations held, since %s", a.Held, a.Since.UTC().Format(time.RFC3339)))
	for _, w := range a.Warming {
		kv("Warming up", w)
	}
	kv("Admission VR", fmt.Sprintf("%.1f%%", a.ViolationRate))
	kv("External done", fmt.Sprintf("%.1f%%", a.CompletedPercent))
	reasons := make([]string, 0, len(a.Rejections))
	for r := range a.Rejections {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		row(tw, "  rejected, "+r+":", a.Rejections[r])
	}
}

// showAdmissionExplain writes the computation of K*: the inputs, E(R_K)
// for K = 1..K*+1, D.
func showAdmissionExplain(w io.Writer, a api.Admission) error {
	tw := newTable(w)
	showAdmissionRows(tw, a)
	x := a.Explain
	if x == nil {
		return tw.Flush()
	}
	if x.Error != "" {
		row(tw, "Explain:", x.Error)
		return tw.Flush()
	}
	row(tw, "Local load rho_l:", fmt.Sprintf("%.4g", x.LocalLoad))
	row(tw, "External load rho_e:", fmt.Sprintf("%.4g", x.ExternalLoad))
	row(tw, "Service E(T):", fmt.Sprintf("%s s, cv %.3g", admission.FormatSeconds(x.ServiceMeanS), x.ServiceCV))
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = newTable(w)
	row(tw, "K", "E(R_K)", "")
	for i, r := range x.ResponseTimesS {
		mark := "<= D"
		if a.ThresholdS > 0 && r > a.ThresholdS {
			mark = "> D"
		}
		row(tw, i+1, admission.FormatSeconds(r)+" s", mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nK* = %d: the largest K with E(R_K) <= D = %s (capped at %d)\n", x.KStar, thresholdText(a.ThresholdS), x.MaxK)
	return nil
}
