package report

import (
	"image"
	"image/color"
	"math"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func TestGanttRows(t *testing.T) {
	tests := []struct {
		name         string
		hosts        int
		maxHost      int // host of the one interval
		perRow, rows int
	}{
		{"one host a row", 2, 1, 1, 2},
		{"exactly the cap", MaxGanttRows, 0, 1, MaxGanttRows},
		{"one over the cap merges pairs", MaxGanttRows + 1, 0, 2, 129}, // ceil(257/256)=2, ceil(257/2)=129
		{"512 hosts in pairs", 512, 511, 2, 256},                       // 512/2
		{"1000 hosts in fours", 1000, 999, 4, 250},                     // ceil(1000/256)=4
		{"interval beyond Hosts widens the chart", 2, 9, 1, 10},        // host 9 needs 10 rows
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Report{Hosts: tt.hosts, Gantt: []Interval{{Host: tt.maxHost, Kind: "vm", StartS: 0, EndS: 60}}}
			g := newGanttBars(r)
			if g.perRow != tt.perRow || g.rows != tt.rows {
				t.Errorf("perRow, rows = %d, %d; want %d, %d", g.perRow, g.rows, tt.perRow, tt.rows)
			}
			if got := len(g.bars[kindVMLocal][tt.maxHost/tt.perRow]); got != 1 {
				t.Errorf("%d bars in the interval's row, want 1", got)
			}
		})
	}
}

func TestGanttSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		report *Report
		height int // pixels at 96 dpi; always 1152 wide
	}{
		{"hosts but no data", &Report{Hosts: 64}, 384},                                             // the 4 inch minimum
		{"100 hosts", &Report{Hosts: 100, Gantt: []Interval{{Host: 3, Kind: "vm", EndS: 1}}}, 624}, // 1.5 + 100*0.05 = 6.5 in
		{"101 hosts", &Report{Hosts: 101, Gantt: []Interval{{Host: 3, Kind: "vm", EndS: 1}}}, 648}, // 6.55 in, rounded up to 6.75
		{"512 hosts in 256 rows", bigReport(2000, 512, 7), 1344},                                   // 14.3 in, capped at 14
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gantt.png")
			if err := WriteGantt(path, tt.report); err != nil {
				t.Fatal(err)
			}
			checkPNG(t, path, image.Pt(1152, tt.height))
		})
	}
}

func TestGanttSkipsBadIntervals(t *testing.T) {
	r := &Report{Hosts: 1, Gantt: []Interval{
		{Host: -1, Kind: "vm", StartS: 0, EndS: 1},
		{Host: 0, Kind: "vm", StartS: math.NaN(), EndS: 1},
		{Host: 0, Kind: "vm", StartS: 0, EndS: math.Inf(1)},
	}}
	if g := newGanttBars(r); g != nil {
		t.Errorf("got bars %+v from invalid intervals only", g)
	}
	if err := WriteGantt(filepath.Join(t.TempDir(), "g.svg"), r); err != nil {
		t.Error(err)
	}
}

// TestGanttColours checks, in the data area of the PNG (left of the legend
// strip), that each kind of the hand report is drawn in its colour and the
// absent kinds are not. A few pixels of text anti-aliasing may match a
// colour by chance; the smallest bar (60 s of 2 h, over a 96 px tall row)
// covers several hundred.
func TestGanttColours(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gantt.png")
	if err := WriteGantt(path, handReport("a")); err != nil {
		t.Fatal(err)
	}
	img := checkPNG(t, path, image.Pt(1152, 384))
	count := map[color.NRGBA]int{}
	dataRight := 1152 - int(legendStrip.Dots(96)) // the legend strip holds swatches too
	for y := 0; y < 384; y++ {
		for x := 0; x < dataRight; x++ {
			count[color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)]++
		}
	}
	tests := []struct {
		kind    int
		present bool
	}{
		{kindVMLocal, true}, {kindVMExternal, true}, {2 /* suspend */, true}, {3 /* resume */, true},
		{4 /* migrate */, false}, {5 /* shutdown */, false}, {kindOther, false},
	}
	for _, tt := range tests {
		k := ganttKinds[tt.kind]
		t.Run(k.name, func(t *testing.T) {
			if n := count[k.color]; (n > 50) != tt.present {
				t.Errorf("%d pixels of %v, want present=%v", n, k.color, tt.present)
			}
		})
	}
}

func TestGanttKindOf(t *testing.T) {
	tests := []struct {
		iv   Interval
		want string
	}{
		{Interval{Kind: "vm", Origin: "local"}, "vm local"},
		{Interval{Kind: "vm", Origin: "external"}, "vm external"},
		{Interval{Kind: "vm"}, "vm local"},
		{Interval{Kind: "migrate", Origin: "external"}, "migrate"},
		{Interval{Kind: "shutdown"}, "shutdown"},
		{Interval{Kind: "boot"}, "other"},
	}
	for _, tt := range tests {
		t.Run(tt.iv.Kind+"/"+tt.iv.Origin, func(t *testing.T) {
			if got := ganttKinds[ganttKindOf(&tt.iv)].name; got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTicks(t *testing.T) {
	tests := []struct {
		name   string
		ticker func(lo, hi float64) []plot.Tick
		lo, hi float64
		labels []string
	}{
		{"hours over a month, step 100", hourTicks, 0, 720, []string{"0", "100", "200", "300", "400", "500", "600", "700"}}, // 720/8=90 -> 100
		{"two hours, step 0.5", hourTicks, 0, 2, []string{"0.0", "0.5", "1.0", "1.5", "2.0"}},                               // 2/8=0.25 -> 0.5
		{"eight hours, step 1", hourTicks, 0, 8, []string{"0", "1", "2", "3", "4", "5", "6", "7", "8"}},                     // 8/8=1 -> 1
		{"empty range", hourTicks, 1, 1, nil},
		{"two hosts", hostTicks, -0.5, 1.5, []string{"0", "1"}},
		{"ten hosts, step 2", hostTicks, -0.5, 9.5, []string{"0", "2", "4", "6", "8"}},                    // 9/8 -> 2
		{"512 hosts, step 100", hostTicks, -0.5, 511.5, []string{"0", "100", "200", "300", "400", "500"}}, // 511/8 -> 100
		{"no whole index", hostTicks, 0.2, 0.8, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var labels []string
			for _, tk := range tt.ticker(tt.lo, tt.hi) {
				if tk.Label != "" {
					labels = append(labels, tk.Label)
				}
			}
			if len(labels) != len(tt.labels) {
				t.Fatalf("labels %q, want %q", labels, tt.labels)
			}
			for i := range labels {
				if labels[i] != tt.labels[i] {
					t.Errorf("labels %q, want %q", labels, tt.labels)
				}
			}
		})
	}
}

func TestThinSteps(t *testing.T) {
	tests := []struct {
		name string
		n    int
		keep bool // returned as is
	}{
		{"short series untouched", 4 * thinColumns, true},
		{"long series thinned", 100000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pts := make(plotter.XYs, tt.n)
			for i := range pts {
				// A saw tooth with one spike, at i = n/3.
				pts[i] = plotter.XY{X: float64(i), Y: float64(i % 7)}
			}
			pts[tt.n/3].Y = 100
			got := thinSteps(pts)
			if tt.keep != (len(got) == tt.n) {
				t.Fatalf("%d points from %d", len(got), tt.n)
			}
			if len(got) > 4*thinColumns {
				t.Errorf("%d points, want at most %d", len(got), 4*thinColumns)
			}
			if got[0] != pts[0] || got[len(got)-1] != pts[len(pts)-1] {
				t.Errorf("ends %v %v, want %v %v", got[0], got[len(got)-1], pts[0], pts[len(pts)-1])
			}
			lo, hi, sorted := math.Inf(1), math.Inf(-1), true
			for i, p := range got {
				lo, hi = min(lo, p.Y), max(hi, p.Y)
				sorted = sorted && (i == 0 || got[i-1].X < p.X)
			}
			if lo != 0 || hi != 100 || !sorted {
				t.Errorf("range [%v, %v] sorted %v, want [0, 100] sorted", lo, hi, sorted)
			}
		})
	}
}

func TestWriteUtilisationEdgeCases(t *testing.T) {
	tests := []struct {
		name    string
		samples []Sample
		metric  float64
	}{
		{"one sample, no makespan", []Sample{{T: 0, Util: 0.5}}, 50},
		{"unsorted samples", []Sample{{T: 600, Util: 1}, {T: 0, Util: 0}}, 50},
		{"all at one time", []Sample{{T: 5, Util: 1}, {T: 5, Util: 0}}, 0},
		{"NaN mean and sample", []Sample{{T: 0, Util: math.NaN()}, {T: 1, Util: 1}}, math.NaN()},
		{"only NaN samples", []Sample{{T: math.NaN(), Util: 1}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Report{Utilisation: tt.samples, Metrics: Metrics{Utilisation: tt.metric}}
			// The data handling is the same for every format; SVG is
			// the cheaper to draw.
			if err := WriteUtilisation(filepath.Join(t.TempDir(), "u.svg"), r); err != nil {
				t.Error(err)
			}
		})
	}
}
