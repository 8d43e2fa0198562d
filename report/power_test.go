package report

import (
	"errors"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// powerReport is handReport with energy: two hosts on for an hour, one
// switched off then (117 W each).
func powerReport() *Report {
	r := handReport("pemp")
	kwh, rate := 0.351, 12.5
	r.Metrics.EnergyKWh, r.Metrics.ViolationRate = &kwh, &rate
	r.Power = []PowerSample{
		{T: 0, Watts: 234, HostsOn: 2},
		{T: 3600, Watts: 117, HostsOn: 1, KWh: 0.234},
		{T: 7200, Watts: 117, HostsOn: 1, KWh: 0.351},
	}
	r.Energy = &EnergyStats{Policy: "pemp", SwitchedOn: 2, SwitchedOff: 1}
	return r
}

// TestWritePower: the plot is written as SVG and PNG (1152 x 576 px); a
// run without power samples has none (ErrNoPower), and WriteDir writes
// power.svg and power.png only for a run that has them.
func TestWritePower(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"p.svg", "p.png"} {
		if err := WritePower(filepath.Join(dir, f), powerReport()); err != nil {
			t.Fatal(err)
		}
	}
	checkPNG(t, filepath.Join(dir, "p.png"), image.Pt(1152, 576))
	svg, _ := os.ReadFile(filepath.Join(dir, "p.svg"))
	if !strings.Contains(string(svg), "hosts on") || !strings.Contains(string(svg), "energy (kWh)") {
		t.Errorf("the SVG lacks its axes: %.200s", svg)
	}
	if err := WritePower(filepath.Join(dir, "x.svg"), handReport("none")); !errors.Is(err, ErrNoPower) {
		t.Errorf("a run without energy: %v, want ErrNoPower", err)
	}
	if err := WritePower(filepath.Join(dir, "x.gif"), powerReport()); !errors.Is(err, ErrFormat) {
		t.Errorf("a .gif: %v, want ErrFormat", err)
	}
	if err := WriteDir(filepath.Join(dir, "sweep"), powerReport(), handReport("MOV")); err != nil {
		t.Fatal(err)
	}
	for run, want := range map[string]bool{"pemp": true, "MOV": false} {
		_, err := os.Stat(filepath.Join(dir, "sweep", run, FilePowerPNG))
		if (err == nil) != want {
			t.Errorf("%s: power.png written %v, want %v", run, err == nil, want)
		}
	}
}

// TestTableEnergyRows: the energy and violation-rate rows appear when a
// report has them, "-" for the others.
func TestTableEnergyRows(t *testing.T) {
	var b strings.Builder
	if err := WriteTable(&b, powerReport(), handReport("MOV")); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"energy (kWh)", "0.35", "violation rate (%)", "12.50"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
