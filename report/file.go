package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// writeFile creates path and fills it with write. Every error is wrapped
// with the path.
func writeFile(path string, write func(io.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("report: writing %s: %w", path, cerr)
		}
	}()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	return nil
}

// imageFormat returns "svg" or "png" for path, or ErrFormat.
func imageFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png":
		return ext[1:], nil
	default:
		return "", fmt.Errorf("report: writing %s: %w", path, ErrFormat)
	}
}

// figure is a plot of a given size with an optional legend drawn in a strip
// to the right of the plot, so that it never hides data.
type figure struct {
	plot   *plot.Plot
	width  vg.Length
	height vg.Length
	legend *plot.Legend // nil: no legend strip
}

// legendStrip is the width of the strip that holds the legend.
const legendStrip = 1.4 * vg.Inch

// newLegend returns a legend set up for the strip right of a plot.
func newLegend() *plot.Legend {
	l := plot.NewLegend()
	l.Top = true
	l.Left = true
	l.XOffs = vg.Points(6)
	l.YOffs = -vg.Points(10)
	l.ThumbnailWidth = vg.Points(16)
	l.Padding = vg.Points(3)
	return &l
}

// save draws the figure to path; the format follows the extension.
func (f figure) save(path string) error {
	format, err := imageFormat(path)
	if err != nil {
		return err
	}
	c, err := draw.NewFormattedCanvas(f.width, f.height, format)
	if err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	dc := draw.New(c)
	if f.legend == nil {
		f.plot.Draw(dc)
	} else {
		f.plot.Draw(draw.Crop(dc, 0, -legendStrip, 0, 0))
		f.legend.Draw(draw.Crop(dc, f.width-legendStrip, 0, 0, 0))
	}
	return writeFile(path, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
}

// hours converts simulation seconds to hours, the x unit of every plot.
func hours(s float64) float64 { return s / 3600 }

// runTitle is what a plot title calls the run.
func runTitle(r *Report) string {
	if r.Name == "" {
		return ""
	}
	return " - " + r.Name
}
