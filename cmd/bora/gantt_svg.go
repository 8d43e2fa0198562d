package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/bora-sched/bora/api"
)

// The Gantt chart as SVG, built with encoding/xml (which escapes host and
// lease names): the same lanes as in the terminal, each run in its lease's
// colour with its id, operations in fixed colours, a tooltip (<title>) on
// every reservation, the time axis, a line at now and a legend.

const (
	svgChartW = 1000.0
	svgLaneH  = 18.0
	svgTop    = 48.0
)

var opColours = map[string]string{"prepare": "#9e9e9e", "suspend": "#d62728", "resume": "#2ca02c",
	"migrate": "#ff7f0e", "shutdown": "#555555", "stop": "#000000", api.BusyKind: "#c7c7c7"}

type svgDoc struct {
	XMLName xml.Name `xml:"svg"`
	NS      string   `xml:"xmlns,attr"`
	Width   string   `xml:"width,attr"`
	Height  string   `xml:"height,attr"`
	Font    string   `xml:"font-family,attr"`
	Size    string   `xml:"font-size,attr"`
	Items   []any
}

type svgRect struct {
	XMLName xml.Name `xml:"rect"`
	X       string   `xml:"x,attr"`
	Y       string   `xml:"y,attr"`
	W       string   `xml:"width,attr"`
	H       string   `xml:"height,attr"`
	Fill    string   `xml:"fill,attr"`
	Stroke  string   `xml:"stroke,attr,omitempty"`
	Title   string   `xml:"title,omitempty"`
}

type svgText struct {
	XMLName xml.Name `xml:"text"`
	X       string   `xml:"x,attr"`
	Y       string   `xml:"y,attr"`
	Anchor  string   `xml:"text-anchor,attr,omitempty"`
	Fill    string   `xml:"fill,attr,omitempty"`
	Text    string   `xml:",chardata"`
}

type svgLine struct {
	XMLName xml.Name `xml:"line"`
	X1      string   `xml:"x1,attr"`
	Y1      string   `xml:"y1,attr"`
	X2      string   `xml:"x2,attr"`
	Y2      string   `xml:"y2,attr"`
	Stroke  string   `xml:"stroke,attr"`
	Dash    string   `xml:"stroke-dasharray,attr,omitempty"`
}

func px(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// leaseColour spreads lease colours around the hue circle (golden angle).
func leaseColour(id uint64) string {
	return fmt.Sprintf("hsl(%d,60%%,62%%)", int(math.Mod(float64(id)*137.508, 360)))
}

// writeSVG draws s as an SVG document.
func writeSVG(w io.Writer, s api.Schedule, leases map[uint64]api.Lease, loc *time.Location) error {
	if !s.To.After(s.From) {
		return fmt.Errorf("the schedule's window is empty (%s .. %s)", s.From, s.To)
	}
	lanes := layoutLanes(s)
	nameW := 0
	for _, l := range lanes {
		nameW = max(nameW, len(l.host))
	}
	left := 16 + 7*float64(min(nameW, 30))
	height := svgTop + svgLaneH*float64(len(lanes)) + 56
	x := func(t time.Time) float64 {
		f := float64(t.Sub(s.From)) / float64(s.To.Sub(s.From))
		return left + svgChartW*math.Min(math.Max(f, 0), 1)
	}
	doc := svgDoc{NS: "http://www.w3.org/2000/svg", Width: px(left + svgChartW + 16), Height: px(height),
		Font: "monospace", Size: "11"}
	add := func(v any) { doc.Items = append(doc.Items, v) }
	add(svgRect{X: "0", Y: "0", W: doc.Width, H: doc.Height, Fill: "white"})
	add(svgText{X: px(left), Y: "16", Text: fmt.Sprintf("bora schedule %s .. %s",
		s.From.In(loc).Format("2006-01-02 15:04:05"), s.To.In(loc).Format("2006-01-02 15:04:05"))})
	bottom := svgTop + svgLaneH*float64(len(lanes))
	svgAxis(add, s, loc, x, bottom)
	for i, l := range lanes {
		y := svgTop + svgLaneH*float64(i)
		if l.first {
			add(svgLine{X1: "0", Y1: px(y), X2: px(left + svgChartW), Y2: px(y), Stroke: "#cccccc"})
			add(svgText{X: "8", Y: px(y + 13), Text: l.host})
		}
		for _, iv := range l.ivs {
			svgInterval(add, iv, leases[iv.Lease], x, y, loc)
		}
	}
	if !s.Now.Before(s.From) && s.Now.Before(s.To) {
		add(svgLine{X1: px(x(s.Now)), Y1: px(svgTop - 6), X2: px(x(s.Now)), Y2: px(bottom + 4), Stroke: "red", Dash: "4 2"})
		add(svgText{X: px(x(s.Now)), Y: px(bottom + 16), Anchor: "middle", Fill: "red", Text: "now"})
	}
	lx := left
	for _, k := range opOrder {
		add(svgRect{X: px(lx), Y: px(height - 22), W: "10", H: "10", Fill: opColours[k]})
		add(svgText{X: px(lx + 14), Y: px(height - 13), Text: k})
		lx += 14 + 7*float64(len(k)) + 16
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", " ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// svgAxis draws a labelled line at round times, about 90 px apart.
func svgAxis(add func(any), s api.Schedule, loc *time.Location, x func(time.Time) float64, bottom float64) {
	span := s.To.Sub(s.From)
	layout := tickLayout(span)
	for _, t := range ticks(s.From, s.To, time.Duration(float64(span)*90/svgChartW), loc) {
		add(svgLine{X1: px(x(t)), Y1: px(svgTop - 4), X2: px(x(t)), Y2: px(bottom), Stroke: "#e0e0e0"})
		add(svgText{X: px(x(t)), Y: px(svgTop - 8), Anchor: "middle", Text: t.In(loc).Format(layout)})
	}
}

func svgInterval(add func(any), iv api.Interval, l api.Lease, x func(time.Time) float64, y float64, loc *time.Location) {
	x0, x1 := x(iv.Start), x(iv.End)
	w := math.Max(x1-x0, 1)
	fill, isOp := opColours[iv.Kind]
	if !isOp {
		fill = leaseColour(iv.Lease)
	}
	who := ""
	if l.ID == iv.Lease && l.User != "" {
		who = " (" + l.User
		if l.Name != "" {
			who += ", " + l.Name
		}
		who += ")"
	}
	title := fmt.Sprintf("lease %d%s: %s on %s, %s .. %s, %d VMs", iv.Lease, who, iv.Kind, iv.Host,
		iv.Start.In(loc).Format("01-02 15:04:05"), iv.End.In(loc).Format("01-02 15:04:05"), iv.VMs)
	add(svgRect{X: px(x0), Y: px(y + 2), W: px(w), H: px(svgLaneH - 4), Fill: fill, Stroke: "#333333", Title: title})
	id := strconv.FormatUint(iv.Lease, 10)
	if !isOp && w > 7*float64(len(id))+4 {
		add(svgText{X: px(x0 + 3), Y: px(y + 13), Text: id})
	}
}
