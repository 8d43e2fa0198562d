package report

import (
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// meanColor draws the dashed line of the mean utilisation.
var meanColor = color.NRGBA{0xe4, 0x1a, 0x1c, 0xff}

// Size of the utilisation plot, legend included: 1152 x 384 pixels in PNG
// at 96 dpi.
const (
	utilWidth  = 12 * vg.Inch
	utilHeight = 4 * vg.Inch
)

// WriteUtilisation writes the CPU utilisation of r over time to path, as
// SVG or PNG after the extension: a step line of r.Utilisation in percent
// (y from 0 to 100) against time in hours, each sample holding until the
// next and the last until the makespan. A dashed line marks
// Metrics.Utilisation, the run's mean. A report without samples gives an
// empty plot titled "no data". Errors are wrapped with the path;
// ErrNilReport and ErrFormat are among them.
func WriteUtilisation(path string, r *Report) error {
	if r == nil {
		return fmt.Errorf("report: writing %s: %w", path, ErrNilReport)
	}
	f, err := utilisationFigure(r)
	if err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	return f.save(path)
}

// utilisationFigure lays out the utilisation plot of r.
func utilisationFigure(r *Report) (figure, error) {
	p := plot.New()
	p.Title.Text = "CPU utilisation" + runTitle(r)
	p.X.Label.Text = "time (h)"
	p.Y.Label.Text = "utilisation (%)"
	p.Y.Min, p.Y.Max = 0, 100
	p.X.Tick.Marker = plot.TickerFunc(hourTicks)
	pts := utilisationPoints(r)
	fig := figure{plot: p, width: utilWidth, height: utilHeight}
	if len(pts) == 0 {
		p.Title.Text += ": no data"
		p.X.Min, p.X.Max = 0, 1
		return fig, nil
	}
	p.Add(plotter.NewGrid())
	lines, err := stepLines(pts)
	if err != nil {
		return fig, err
	}
	for _, l := range lines {
		p.Add(l)
	}
	fig.legend = newLegend()
	fig.legend.Add("utilisation", lines[0])
	if u := r.Metrics.Utilisation; finite(u) {
		mean, err := plotter.NewLine(plotter.XYs{{X: pts[0].X, Y: u}, {X: pts[len(pts)-1].X, Y: u}})
		if err != nil {
			return fig, err
		}
		mean.Color = meanColor
		mean.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(mean)
		fig.legend.Add(fmt.Sprintf("mean %.2f %%", u), mean)
	}
	return fig, nil
}

// utilisationPoints returns the samples of r as (hours, percent), sorted
// by time, with a last point at the makespan so that the last sample's
// step is drawn. Samples with non-finite values are skipped. Long series
// are thinned by thinSteps.
func utilisationPoints(r *Report) plotter.XYs {
	samples := make([]Sample, 0, len(r.Utilisation))
	for _, s := range r.Utilisation {
		if finite(s.T) && finite(s.Util) {
			samples = append(samples, s)
		}
	}
	if len(samples) == 0 {
		return nil
	}
	slices.SortStableFunc(samples, func(a, b Sample) int {
		switch {
		case a.T < b.T:
			return -1
		case a.T > b.T:
			return 1
		}
		return 0
	})
	pts := make(plotter.XYs, 0, len(samples)+1)
	for _, s := range samples {
		pts = append(pts, plotter.XY{X: hours(s.T), Y: 100 * s.Util})
	}
	last := samples[len(samples)-1]
	if end := r.Metrics.MakespanS; finite(end) && end > last.T {
		pts = append(pts, plotter.XY{X: hours(end), Y: 100 * last.Util})
	}
	return thinSteps(pts)
}

// Long step lines are thinned to at most four points in each of
// thinColumns columns (about one a pixel) and stroked in pieces of
// strokeChunk points: the PNG rasteriser slows down sharply on one long
// path that crosses itself (4000 noisy samples took seconds).
const (
	thinColumns = 1000
	strokeChunk = 128
)

// stepLines returns pts as post-step lines of at most strokeChunk points,
// each starting where the previous one ends.
func stepLines(pts plotter.XYs) ([]*plotter.Line, error) {
	var lines []*plotter.Line
	for start := 0; ; start += strokeChunk - 1 {
		end := min(start+strokeChunk, len(pts))
		l, err := plotter.NewLine(pts[start:end])
		if err != nil {
			return nil, err
		}
		l.StepStyle = plotter.PostStep
		l.Color = ganttKinds[kindVMLocal].color
		l.Width = vg.Points(1)
		lines = append(lines, l)
		if end == len(pts) {
			return lines, nil
		}
	}
}

// thinSteps keeps, of the points falling in each of thinColumns equal time
// columns, the first, the lowest, the highest and the last, in time order.
// A column being about a pixel wide, the step line through them covers the
// same pixels as the full one. Series short enough are returned as they
// are; pts must be sorted by X.
func thinSteps(pts plotter.XYs) plotter.XYs {
	if len(pts) <= 4*thinColumns {
		return pts
	}
	x0, width := pts[0].X, (pts[len(pts)-1].X-pts[0].X)/thinColumns
	column := func(i int) int {
		if !(width > 0) { // all at one time: a single column
			return 0
		}
		return min(int((pts[i].X-x0)/width), thinColumns-1)
	}
	out := make(plotter.XYs, 0, 4*thinColumns)
	for first := 0; first < len(pts); {
		last, lo, hi := first, first, first
		for last+1 < len(pts) && column(last+1) == column(first) {
			last++
			if pts[last].Y < pts[lo].Y {
				lo = last
			}
			if pts[last].Y > pts[hi].Y {
				hi = last
			}
		}
		keep := []int{first, lo, hi, last}
		slices.Sort(keep)
		for i, k := range keep {
			if i == 0 || k != keep[i-1] {
				out = append(out, pts[k])
			}
		}
		first = last + 1
	}
	return out
}
