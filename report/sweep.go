package report

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one line of a sweep plot: its mean at each x and the ends of
// its confidence band.
type Series struct {
	Name      string
	X, Y      []float64
	Low, High []float64
}

// SweepPlot is a figure of several series against one swept parameter,
// each a line with a shaded band (its 95 % confidence interval).
type SweepPlot struct {
	Title, XLabel, YLabel string
	// XTicks, when set, labels x = 0, 1, 2... with these names (a swept
	// parameter whose values are not numbers).
	XTicks []string
	Series []Series
}

const (
	sweepWidth  = 7 * vg.Inch
	sweepHeight = 4 * vg.Inch
)

// WriteSweep draws the plot to path (.svg or .png).
func WriteSweep(path string, sp SweepPlot) error {
	f, err := sweepFigure(sp)
	if err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	return f.save(path)
}

func sweepFigure(sp SweepPlot) (figure, error) {
	p := plot.New()
	p.Title.Text = sp.Title
	p.X.Label.Text = sp.XLabel
	p.Y.Label.Text = sp.YLabel
	p.Add(plotter.NewGrid())
	if len(sp.XTicks) > 0 {
		ticks := make([]plot.Tick, len(sp.XTicks))
		for i, t := range sp.XTicks {
			ticks[i] = plot.Tick{Value: float64(i), Label: t}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	fig := figure{plot: p, width: sweepWidth, height: sweepHeight, legend: newLegend()}
	for i, s := range sp.Series {
		if len(s.X) != len(s.Y) || len(s.X) != len(s.Low) || len(s.X) != len(s.High) {
			return fig, fmt.Errorf("series %q: %d x, %d y, %d low, %d high values", s.Name, len(s.X), len(s.Y), len(s.Low), len(s.High))
		}
		c := plotutil.Color(i)
		if len(s.X) > 1 {
			band := make(plotter.XYs, 0, 2*len(s.X))
			for j := range s.X {
				band = append(band, plotter.XY{X: s.X[j], Y: s.High[j]})
			}
			for j := len(s.X) - 1; j >= 0; j-- {
				band = append(band, plotter.XY{X: s.X[j], Y: s.Low[j]})
			}
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return fig, err
			}
			r, g, b, _ := c.RGBA()
			poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 48}
			poly.LineStyle.Width = 0
			p.Add(poly)
		}
		xys := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xys[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fig, err
		}
		line.Color, points.Color = c, c
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		fig.legend.Add(s.Name, line, points)
	}
	return fig, nil
}
