package experiment

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bora-sched/bora/report"
)

// WriteDir writes the experiment's outputs to dir (created if missing):
// results.txt, results.csv and results.json, timings.csv (WriteTimings:
// not results, they change from one run to the next), and per metric a
// line plot with 95 % bands, METRIC.svg and METRIC.png. It returns the
// files' paths.
func WriteDir(dir string, r *Result) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, f := range []struct {
		name  string
		write func(io.Writer, *Result) error
	}{{"results.txt", WriteText}, {"results.csv", WriteCSV}, {"results.json", WriteJSON}, {"timings.csv", WriteTimings}} {
		path := filepath.Join(dir, f.name)
		if err := writeFile(path, func(w io.Writer) error { return f.write(w, r) }); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	for m, name := range r.Spec.Metrics {
		for _, ext := range []string{".svg", ".png"} {
			path := filepath.Join(dir, name+ext)
			if err := report.WriteSweep(path, r.plot(m)); err != nil {
				return files, err
			}
			files = append(files, path)
		}
	}
	return files, nil
}

func writeFile(path string, write func(io.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return bw.Flush()
}

// plot is metric m's figure: one series per policy against the swept
// values (numbers when they all are, else evenly spaced names).
func (r *Result) plot(m int) report.SweepPlot {
	s := r.Spec
	xs, numeric := make([]float64, len(s.Vary.Values)), true
	for i, v := range s.Vary.Values {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			numeric = false
		}
		xs[i] = x
	}
	sp := report.SweepPlot{
		Title:  fmt.Sprintf("%s: %s (mean, 95%% CI, %d seeds)", s.Name, s.Metrics[m], s.Seeds),
		XLabel: s.Vary.Param,
		YLabel: s.Metrics[m],
	}
	if !numeric {
		sp.XTicks = s.Vary.Values
		for i := range xs {
			xs[i] = float64(i)
		}
	}
	for q, pol := range s.Policies {
		se := report.Series{Name: pol.Name, X: xs}
		for p := range s.Vary.Values {
			sum := r.Summary[p][q][m]
			se.Y = append(se.Y, sum.Mean)
			se.Low = append(se.Low, sum.Lo())
			se.High = append(se.High, sum.Hi())
		}
		sp.Series = append(sp.Series, se)
	}
	return sp
}

// WriteText writes one table per metric: a row per swept value, a column
// per policy, each cell mean ± half-width of the 95 % interval; then the
// paired comparison, with * where the interval excludes zero.
func WriteText(w io.Writer, r *Result) error {
	s := r.Spec
	if len(r.Clusters) == 0 {
		fmt.Fprintf(w, "experiment %s: model %s, %d seeds (from %d), %d simulations\n", s.Name, s.ModelName(), s.Seeds, s.FirstSeed, r.Runs)
	} else {
		fmt.Fprintf(w, "experiment %s: model %s, %d seeds (from %d), %d runs of %d clusters (%s) each, aggregated\n",
			s.Name, s.ModelName(), s.Seeds, s.FirstSeed, r.Runs, len(r.Clusters), strings.Join(r.Clusters, ", "))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for m, metric := range s.Metrics {
		fmt.Fprintf(tw, "\n%s\t", metric)
		for _, pol := range s.Policies {
			fmt.Fprintf(tw, "%s\t", pol.Name)
		}
		if r.Paired != nil {
			fmt.Fprintf(tw, "%s - %s\t", s.Compare[0], s.Compare[1])
		}
		fmt.Fprintln(tw)
		for p, v := range s.Vary.Values {
			fmt.Fprintf(tw, "%s=%s\t", s.Vary.Param, v)
			for q := range s.Policies {
				fmt.Fprintf(tw, "%s\t", pm(r.Summary[p][q][m]))
			}
			if r.Paired != nil {
				d := r.Paired[p][m]
				star := ""
				if d.Significant() {
					star = " *"
				}
				fmt.Fprintf(tw, "%s%s\t", pm(d), star)
			}
			fmt.Fprintln(tw)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Paired != nil {
		_, err := fmt.Fprintf(w, "\n%s - %s: paired by seed; * where the 95 %% interval excludes 0\n", s.Compare[0], s.Compare[1])
		return err
	}
	return nil
}

func pm(s Summary) string { return num(s.Mean) + " ± " + num(s.CI) }

func num(x float64) string { return strconv.FormatFloat(x, 'g', 5, 64) }

// WriteCSV writes a row per (point, policy, metric) and, with a
// comparison, per (point, metric) with policy "A - B".
func WriteCSV(w io.Writer, r *Result) error {
	s := r.Spec
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"param", "value", "policy", "metric", "n", "mean", "sd", "ci95", "low", "high"})
	row := func(p int, policy, metric string, sum Summary) {
		f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		_ = cw.Write([]string{s.Vary.Param, s.Vary.Values[p], policy, metric, strconv.Itoa(sum.N),
			f(sum.Mean), f(sum.SD), f(sum.CI), f(sum.Lo()), f(sum.Hi())})
	}
	for p := range s.Vary.Values {
		for q, pol := range s.Policies {
			for m, metric := range s.Metrics {
				row(p, pol.Name, metric, r.Summary[p][q][m])
			}
		}
		if r.Paired != nil {
			for m, metric := range s.Metrics {
				row(p, s.Compare[0]+" - "+s.Compare[1], metric, r.Paired[p][m])
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteTimings writes each run's wall-clock time in seconds, a row per
// (point, policy, seed) in the order of the results, so that the runs
// that cost the most can be found and a sweep's cost reported. The times
// depend on the machine and its load, unlike everything else written.
func WriteTimings(w io.Writer, r *Result) error {
	s := r.Spec
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"param", "value", "policy", "seed", "wall_s"})
	for p := range r.Wall {
		for q := range r.Wall[p] {
			for k, d := range r.Wall[p][q] {
				_ = cw.Write([]string{s.Vary.Param, s.Vary.Values[p], s.Policies[q].Name,
					strconv.FormatUint(r.Seeds[k], 10), strconv.FormatFloat(d.Seconds(), 'f', 3, 64)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Slowest returns the run that took the longest: its point, policy and
// seed index, and its time.
func (r *Result) Slowest() (p, q, k int, d time.Duration) {
	for i := range r.Wall {
		for j := range r.Wall[i] {
			for m, x := range r.Wall[i][j] {
				if x > d {
					p, q, k, d = i, j, m, x
				}
			}
		}
	}
	return p, q, k, d
}

// jsonResult is the JSON form of a Result.
type jsonResult struct {
	Name  string `json:"name"`
	Model string `json:"model"`
	// Federation is the federation file of an experiment over one.
	Federation string            `json:"federation,omitempty"`
	Params     map[string]string `json:"params"`
	Config     map[string]string `json:"config,omitempty"`
	Param      string            `json:"param"`
	Seeds      []uint64          `json:"seeds"`
	Compare    []string          `json:"compare,omitempty"`
	// Clusters names a multi-cluster model's clusters, simulated one by
	// one and aggregated into each sample.
	Clusters []string    `json:"clusters,omitempty"`
	Points   []jsonPoint `json:"points"`
}

type jsonPoint struct {
	Value    string                           `json:"value"`
	Policies map[string]map[string]jsonMetric `json:"policies"`
	Paired   map[string]Summary               `json:"paired,omitempty"`
}

type jsonMetric struct {
	Summary Summary `json:"summary"`
	Samples []any   `json:"samples"` // seed by seed; null where undefined
	// Clusters are a multi-cluster model's per-cluster values, seed by
	// seed, that Samples aggregates.
	Clusters map[string][]any `json:"clusters,omitempty"`
}

// WriteJSON writes the summaries with every sample, seed by seed.
func WriteJSON(w io.Writer, r *Result) error {
	s := r.Spec
	out := jsonResult{Name: s.Name, Model: s.Model, Federation: s.Federation, Params: s.Params, Config: s.Config, Param: s.Vary.Param,
		Seeds: r.Seeds, Compare: s.Compare, Clusters: r.Clusters}
	for p, v := range s.Vary.Values {
		pt := jsonPoint{Value: v, Policies: map[string]map[string]jsonMetric{}}
		for q, pol := range s.Policies {
			ms := map[string]jsonMetric{}
			for m, metric := range s.Metrics {
				jm := jsonMetric{Summary: r.Summary[p][q][m]}
				for _, x := range r.Samples[p][q][m] {
					jm.Samples = append(jm.Samples, jsonNumber(x))
				}
				if r.ClusterSamples != nil {
					jm.Clusters = map[string][]any{}
					for c, name := range r.Clusters {
						for _, x := range r.ClusterSamples[p][q][m][c] {
							jm.Clusters[name] = append(jm.Clusters[name], jsonNumber(x))
						}
					}
				}
				ms[metric] = jm
			}
			pt.Policies[pol.Name] = ms
		}
		if r.Paired != nil {
			pt.Paired = map[string]Summary{}
			for m, metric := range s.Metrics {
				pt.Paired[metric] = r.Paired[p][m]
			}
		}
		out.Points = append(out.Points, pt)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
