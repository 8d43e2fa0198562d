package report

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Size of the power plot: two panels, 1152 x 576 pixels in PNG at 96 dpi.
const (
	powerWidth  = 12 * vg.Inch
	powerHeight = 6 * vg.Inch
)

// energyColor draws the cumulative energy.
var energyColor = color.NRGBA{0x2c, 0xa0, 0x2c, 0xff}

// WritePower writes the power of r over time to path, as SVG or PNG after
// the extension: above, the hosts on (a step line of r.Power's HostsOn);
// below, the energy used since the start in kWh (a line through the
// samples' KWh, exact between them as the power is constant there),
// both against time in hours. A report without power samples (a run that
// did not model energy) gives ErrNoPower. Errors are wrapped with the
// path; ErrNilReport and ErrFormat are among them.
func WritePower(path string, r *Report) error {
	if r == nil {
		return fmt.Errorf("report: writing %s: %w", path, ErrNilReport)
	}
	if len(r.Power) == 0 {
		return fmt.Errorf("report: writing %s: %w", path, ErrNoPower)
	}
	format, err := imageFormat(path)
	if err != nil {
		return err
	}
	hostsPlot, energyPlot, err := powerPlots(r)
	if err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	c, err := draw.NewFormattedCanvas(powerWidth, powerHeight, format)
	if err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadY: vg.Points(12),
		PadLeft: vg.Points(4), PadRight: vg.Points(12)}
	canvases := plot.Align([][]*plot.Plot{{hostsPlot}, {energyPlot}}, tiles, draw.New(c))
	hostsPlot.Draw(canvases[0][0])
	energyPlot.Draw(canvases[1][0])
	return writeFile(path, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
}

// powerPlots builds the two panels of the power plot.
func powerPlots(r *Report) (*plot.Plot, *plot.Plot, error) {
	hosts, kwh := powerPoints(r)
	top := plot.New()
	top.Title.Text = "Hosts on and energy" + runTitle(r)
	if r.Metrics.EnergyKWh != nil {
		top.Title.Text += fmt.Sprintf(" (%.1f kWh)", *r.Metrics.EnergyKWh)
	}
	top.Y.Label.Text = "hosts on"
	top.Y.Min = 0
	if r.Hosts > 0 {
		top.Y.Max = float64(r.Hosts)
	}
	top.X.Tick.Marker = plot.TickerFunc(hourTicks)
	top.Y.Tick.Marker = plot.TickerFunc(wholeTicks)
	top.Add(plotter.NewGrid())
	lines, err := stepLines(thinSteps(hosts))
	if err != nil {
		return nil, nil, err
	}
	for _, l := range lines {
		top.Add(l)
	}
	bottom := plot.New()
	bottom.X.Label.Text = "time (h)"
	bottom.Y.Label.Text = "energy (kWh)"
	bottom.Y.Min = 0
	bottom.X.Tick.Marker = plot.TickerFunc(hourTicks)
	bottom.Add(plotter.NewGrid())
	line, err := plotter.NewLine(thinSteps(kwh))
	if err != nil {
		return nil, nil, err
	}
	line.Color = energyColor
	line.Width = vg.Points(1.5)
	bottom.Add(line)
	bottom.X.Min, bottom.X.Max = top.X.Min, top.X.Max
	return top, bottom, nil
}

// wholeTicks are the default ticks labelled as whole numbers (hosts).
func wholeTicks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = fmt.Sprintf("%.0f", ticks[i].Value)
		}
	}
	return ticks
}

// powerPoints returns the hosts on and the energy as (hours, value),
// skipping non-finite samples.
func powerPoints(r *Report) (hosts, kwh plotter.XYs) {
	for _, s := range r.Power {
		if !finite(s.T) || !finite(s.KWh) {
			continue
		}
		x := hours(s.T)
		hosts = append(hosts, plotter.XY{X: x, Y: float64(s.HostsOn)})
		kwh = append(kwh, plotter.XY{X: x, Y: s.KWh})
	}
	if len(hosts) == 0 {
		hosts = plotter.XYs{{}}
		kwh = plotter.XYs{{}}
	}
	return hosts, kwh
}
