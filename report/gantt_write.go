package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Sizes of the Gantt chart: the height grows with the rows drawn, between
// ganttMinHeight and ganttMaxHeight.
const (
	ganttWidth     = 12 * vg.Inch
	ganttMinHeight = 4 * vg.Inch
	ganttMaxHeight = 14 * vg.Inch
	ganttRowHeight = 0.05 * vg.Inch
	ganttMargin    = 1.5 * vg.Inch
)

// ganttHeight is the height of a chart of rows rows, rounded up to a
// quarter inch.
func ganttHeight(rows int) vg.Length {
	h := ganttMargin + vg.Length(rows)*ganttRowHeight
	h = vg.Length(math.Ceil(float64(h/vg.Inch)*4)) * vg.Inch / 4 // whole pixels
	return min(max(h, ganttMinHeight), ganttMaxHeight)
}

// WriteGantt writes the Gantt chart of r.Gantt to path, as SVG or PNG after
// the extension: x is the time in hours, y the host index, one bar per
// interval coloured by kind (vm local, vm external, suspend, resume,
// migrate, shutdown, and other for unknown kinds) with the legend right of
// the plot.
//
// Large runs stay readable and cheap to draw: with more than MaxGanttRows
// hosts, consecutive hosts are merged into one row (the y label says how
// many) and overhead operations are painted over VM bars; bars that would
// touch at the drawn scale are merged into one rectangle; and every bar is
// at least about a pixel wide. The height grows with the rows drawn, up to
// 14 inches (1344 pixels in PNG at 96 dpi) for a width of 12 inches.
//
// A report without intervals gives an empty chart titled "no data". Errors
// are wrapped with the path; ErrNilReport and ErrFormat are among them.
func WriteGantt(path string, r *Report) error {
	if r == nil {
		return fmt.Errorf("report: writing %s: %w", path, ErrNilReport)
	}
	return ganttFigure(r).save(path)
}

// ganttFigure lays out the Gantt chart of r.
func ganttFigure(r *Report) figure {
	p := plot.New()
	p.Title.Text = "Gantt chart" + runTitle(r)
	p.X.Label.Text = "time (h)"
	p.Y.Label.Text = "host"
	p.X.Tick.Marker = plot.TickerFunc(hourTicks)
	g := newGanttBars(r)
	if g == nil {
		p.Title.Text += ": no data"
		p.X.Min, p.X.Max = 0, 1
		p.Y.Min, p.Y.Max = -0.5, max(float64(r.Hosts), 1)-0.5
		p.Y.Tick.Marker = plot.TickerFunc(hostTicks)
		return figure{plot: p, width: ganttWidth, height: ganttMinHeight}
	}
	if g.perRow > 1 {
		p.Y.Label.Text = fmt.Sprintf("host (%d hosts per row)", g.perRow)
	}
	p.Y.Tick.Marker = plot.TickerFunc(hostTicks)
	p.Add(g)
	legend := newLegend()
	for k, kind := range ganttKinds {
		if k != kindOther || g.present[k] {
			legend.Add(kind.name, swatch(kind.color))
		}
	}
	return figure{plot: p, width: ganttWidth, height: ganttHeight(g.rows), legend: legend}
}
