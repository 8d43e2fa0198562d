package report

import (
	"image/color"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MaxGanttRows is the most rows a Gantt chart draws. A run with more hosts
// has its hosts merged into bands of ceil(hosts/MaxGanttRows) consecutive
// hosts, one row per band; the y axis still reads in host indices.
const MaxGanttRows = 256

// ganttKind is one colour of the Gantt chart.
type ganttKind struct {
	name  string
	color color.NRGBA
}

// ganttKinds are the bar kinds in legend order. Intervals of a kind not
// listed here are drawn as "other".
var ganttKinds = []ganttKind{
	{"vm local", color.NRGBA{0x4c, 0x78, 0xa8, 0xff}},
	{"vm external", color.NRGBA{0xf5, 0x85, 0x18, 0xff}},
	{"suspend", color.NRGBA{0xe4, 0x1a, 0x1c, 0xff}},
	{"resume", color.NRGBA{0x2c, 0xa0, 0x2c, 0xff}},
	{"migrate", color.NRGBA{0x94, 0x67, 0xbd, 0xff}},
	{"shutdown", color.NRGBA{0x8c, 0x56, 0x4b, 0xff}},
	{"other", color.NRGBA{0xb0, 0xb0, 0xb0, 0xff}},
}

const (
	kindVMLocal = iota
	kindVMExternal
	kindOther = 6
)

// ganttDrawOrder paints the VM bars first and the short overhead
// operations over them, so that these stay visible where rows are merged.
var ganttDrawOrder = []int{kindVMLocal, kindVMExternal, kindOther, 2, 3, 4, 5}

// ganttKindOf returns the index in ganttKinds of an interval.
func ganttKindOf(iv *Interval) int {
	if iv.Kind == "vm" {
		if iv.Origin == "external" {
			return kindVMExternal
		}
		return kindVMLocal
	}
	for k := 2; k < kindOther; k++ {
		if ganttKinds[k].name == iv.Kind {
			return k
		}
	}
	return kindOther
}

// span is a time interval in hours.
type span struct{ from, to float64 }

// ganttBars is the plot.Plotter of a Gantt chart: bars[kind][row] holds the
// spans of that kind on that row, sorted by start.
type ganttBars struct {
	bars       [][][]span
	perRow     int // hosts merged into one row
	rows       int
	xmin, xmax float64 // hours
	present    []bool  // kinds with at least one bar
}

// Bars closer than joinGap are drawn as one rectangle, and no bar is drawn
// narrower than minBarWidth (about a pixel at 96 dpi), so that overhead
// operations of a few seconds stay visible in a month-long run.
const (
	joinGap     = 0.5 // points
	minBarWidth = 0.75
)

// newGanttBars groups the intervals of r by kind and row. It returns nil
// when there is nothing to draw. Intervals with a negative host or
// non-finite times are skipped; one that ends before it starts is drawn as
// a minimal bar at its start.
func newGanttBars(r *Report) *ganttBars {
	hosts := r.Hosts
	var valid []*Interval
	for i := range r.Gantt {
		iv := &r.Gantt[i]
		if iv.Host < 0 || !finite(iv.StartS) || !finite(iv.EndS) {
			continue
		}
		valid = append(valid, iv)
		hosts = max(hosts, iv.Host+1)
	}
	if len(valid) == 0 {
		return nil
	}
	g := &ganttBars{perRow: (hosts + MaxGanttRows - 1) / MaxGanttRows, xmax: math.Inf(-1)}
	g.rows = (hosts + g.perRow - 1) / g.perRow
	g.bars = make([][][]span, len(ganttKinds))
	for k := range g.bars {
		g.bars[k] = make([][]span, g.rows)
	}
	g.present = make([]bool, len(ganttKinds))
	for _, iv := range valid {
		s := span{from: hours(iv.StartS), to: hours(max(iv.StartS, iv.EndS))}
		k, row := ganttKindOf(iv), iv.Host/g.perRow
		g.bars[k][row] = append(g.bars[k][row], s)
		g.present[k] = true
		g.xmin, g.xmax = min(g.xmin, s.from), max(g.xmax, s.to)
	}
	for _, byRow := range g.bars {
		for _, spans := range byRow {
			sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
		}
	}
	return g
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// DataRange implements plot.DataRanger: x from the simulation start (or
// the earliest bar) to the last end, in hours; y over all host indices.
func (g *ganttBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	return g.xmin, g.xmax, -0.5, float64(g.rows*g.perRow) - 0.5
}

// rowBounds returns the y extent, in host indices, of the bars of a row,
// leaving a tenth of the row free on either side.
func (g *ganttBars) rowBounds(row int) (lo, hi float64) {
	pad := 0.1 * float64(g.perRow)
	lo = float64(row*g.perRow) - 0.5 + pad
	hi = float64((row+1)*g.perRow) - 0.5 - pad
	return lo, hi
}

// Plot implements plot.Plotter, drawing each bar as a filled rectangle.
func (g *ganttBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, k := range ganttDrawOrder {
		clr := ganttKinds[k].color
		for row, spans := range g.bars[k] {
			lo, hi := g.rowBounds(row)
			y0, y1 := trY(lo), trY(hi)
			g.plotRow(&c, clr, spans, trX, y0, y1)
		}
	}
}

// plotRow draws the spans of one kind on one row, joining those that
// would touch on the canvas.
func (g *ganttBars) plotRow(c *draw.Canvas, clr color.Color, spans []span, trX func(float64) vg.Length, y0, y1 vg.Length) {
	if len(spans) == 0 {
		return
	}
	fill := func(x0, x1 vg.Length) {
		if x1-x0 < minBarWidth {
			x1 = x0 + minBarWidth
		}
		x1 = min(x1, c.Max.X)
		c.FillPolygon(clr, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	}
	cx0, cx1 := trX(spans[0].from), trX(spans[0].to)
	for _, s := range spans[1:] {
		x0, x1 := trX(s.from), trX(s.to)
		if x0 <= cx1+joinGap {
			cx1 = max(cx1, x1)
			continue
		}
		fill(cx0, cx1)
		cx0, cx1 = x0, x1
	}
	fill(cx0, cx1)
}

// swatch is the legend thumbnail of a bar kind.
type swatch color.NRGBA

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y},
	}
	c.FillPolygon(color.NRGBA(s), pts)
}

// hostTicks marks whole host indices (see niceTicks).
func hostTicks(lo, hi float64) []plot.Tick { return niceTicks(lo, hi, 1) }

// hourTicks marks the time axis (see niceTicks).
func hourTicks(lo, hi float64) []plot.Tick { return niceTicks(lo, hi, 0) }

// niceTicks returns about eight labelled ticks over [lo, hi], at a step of
// 1, 2 or 5 times a power of ten and at least minStep, with unlabelled
// minor ticks between them when these are also multiples of minStep.
// gonum's default gives only three or four labels on a wide plot.
func niceTicks(lo, hi, minStep float64) []plot.Tick {
	if !(lo < hi) || !finite(lo) || !finite(hi) {
		return nil
	}
	step, minors := niceStep((hi - lo) / 8)
	if step < minStep {
		step, minors = minStep, 1
	}
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	minor := step / float64(minors)
	for k := math.Ceil(lo / minor); k*minor <= hi; k++ {
		if math.Mod(k, float64(minors)) != 0 && minor >= minStep {
			ticks = append(ticks, plot.Tick{Value: k * minor})
		}
	}
	for k := math.Ceil(lo / step); k*step <= hi; k++ {
		v := k*step + 0 // + 0 turns -0 into 0
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	return ticks
}

// niceStep returns the smallest of ..., 0.1, 0.2, 0.5, 1, 2, 5, 10, ...
// that is at least x (> 0), and how many minor intervals divide it.
func niceStep(x float64) (step float64, minors int) {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []struct {
		mult   float64
		minors int
	}{{1, 5}, {2, 2}, {5, 5}} {
		if m.mult*p >= x*(1-1e-9) {
			return m.mult * p, m.minors
		}
	}
	return 10 * p, 5
}
