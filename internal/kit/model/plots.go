package model

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/lmdbio/lmdbio/internal/kit/bench/figure"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Point is one prediction of a sweep over node counts.
type Point struct {
	Contender    Contender
	Nodes        int
	RanksPerNode int
	Prediction
}

// Sweep predicts every contender at every node count.
func Sweep(p Params, contenders []Contender, nodes []int, ranksPerNode int, w Workload, l Loader) []Point {
	var out []Point
	for _, c := range contenders {
		for _, n := range nodes {
			cfg := Config{Contender: c, Nodes: n, RanksPerNode: ranksPerNode, Workload: w, Loader: l}
			out = append(out, Point{Contender: c, Nodes: n, RanksPerNode: ranksPerNode, Prediction: Predict(p, cfg)})
		}
	}
	return out
}

// colors give every contender the colour the benchmark report gives the
// mode that measures it.
var colors = map[Contender]color.Color{
	Caffe: rgb(0x9c755f), LMM: rgb(0x76b7b2), DIO: rgb(0xedc948), PROV: rgb(0xb07aa1),
	COAL: rgb(0x59a14f), STAG: rgb(0xe15759), Exchange: rgb(0x4e79a7),
}

func rgb(v uint32) color.Color {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// SweepFigures plots a sweep: delivered MB/s and time against nodes, one
// line per contender, nodes on a log2 axis. title names the parameters.
func SweepFigures(points []Point, title string) ([]figure.Figure, error) {
	var out []figure.Figure
	for _, f := range []struct {
		name, y string
		value   func(Point) float64
	}{
		{"model_mb_per_s", "delivered to all learners (MB/s, log scale)", func(p Point) float64 { return p.MBPerS }},
		{"model_seconds", "time from the start to the last batch (s, log scale)", func(p Point) float64 { return p.Seconds }},
	} {
		p := newPlot(title, "nodes (log scale)", f.y)
		l := figure.NewLegend()
		var nodes []int
		var ys []float64
		for _, c := range distinctContenders(points) {
			var xys plotter.XYs
			for _, pt := range points {
				if pt.Contender == c && f.value(pt) > 0 {
					xys = append(xys, plotter.XY{X: math.Log2(float64(pt.Nodes)), Y: math.Log10(f.value(pt))})
					nodes = append(nodes, pt.Nodes)
					ys = append(ys, f.value(pt))
				}
			}
			if err := addLine(p, &l, string(c), xys, colors[c], c == STAG); err != nil {
				return nil, err
			}
		}
		if len(nodes) == 0 {
			return nil, fmt.Errorf("model: nothing to plot")
		}
		nodeTicks(p, nodes)
		logTicks(p, ys)
		out = append(out, figure.Figure{Name: f.name, Plot: p, Legend: l})
	}
	return out, nil
}

// FitFigure plots measured against predicted times, the observations the
// fit used and those held out, with the line of perfect agreement and
// ±15 % beside it.
func FitFigure(fitted, held []Residual, title string) (figure.Figure, error) {
	p := newPlot(title, "measured (s, log scale)", "predicted (s, log scale)")
	l := figure.NewLegend()
	var all []float64
	for _, set := range []struct {
		name  string
		rs    []Residual
		color color.Color
		glyph draw.GlyphDrawer
	}{
		{"fitted on", fitted, rgb(0x4e79a7), draw.CircleGlyph{}},
		{"held out", held, rgb(0xe15759), draw.TriangleGlyph{}},
	} {
		if len(set.rs) == 0 {
			continue
		}
		var xys plotter.XYs
		for _, r := range set.rs {
			xys = append(xys, plotter.XY{X: math.Log10(r.Seconds), Y: math.Log10(r.Predicted)})
			all = append(all, r.Seconds, r.Predicted)
		}
		s, err := plotter.NewScatter(xys)
		if err != nil {
			return figure.Figure{}, fmt.Errorf("model: plot: %w", err)
		}
		s.Color, s.Shape, s.Radius = set.color, set.glyph, vg.Points(3)
		p.Add(s)
		l.Add(fmt.Sprintf("%s (%d)", set.name, len(set.rs)), s)
	}
	if len(all) == 0 {
		return figure.Figure{}, fmt.Errorf("model: nothing to plot")
	}
	lo, hi := math.Log10(slices.Min(all)/1.3), math.Log10(slices.Max(all)*1.3)
	for _, ref := range []struct {
		name   string
		factor float64
		dash   []vg.Length
	}{
		{"predicted = measured", 1, nil},
		{"±15 %", 1.15, []vg.Length{vg.Points(4), vg.Points(3)}},
		{"", 0.85, []vg.Length{vg.Points(4), vg.Points(3)}},
	} {
		d := math.Log10(ref.factor)
		line, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo + d}, {X: hi, Y: hi + d}})
		if err != nil {
			return figure.Figure{}, fmt.Errorf("model: plot: %w", err)
		}
		line.Color, line.Dashes = color.Gray{Y: 0x60}, ref.dash
		p.Add(line)
		if ref.name != "" {
			l.Add(ref.name, line)
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	p.X.Tick.Marker, p.Y.Tick.Marker = figure.Log10Ticks{}, figure.Log10Ticks{}
	return figure.Figure{Name: "model_fit", Plot: p, Legend: l}, nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.Add(plotter.NewGrid())
	return p
}

func addLine(p *plot.Plot, l *plot.Legend, name string, xys plotter.XYs, c color.Color, bold bool) error {
	if len(xys) == 0 {
		return nil
	}
	line, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return fmt.Errorf("model: plot %s: %w", name, err)
	}
	line.Color, pts.Color = c, c
	line.Width, pts.Radius = vg.Points(1.5), vg.Points(3)
	if bold {
		line.Width = vg.Points(3)
	}
	p.Add(line, pts)
	l.Add(name, line, pts)
	return nil
}

// nodeTicks labels a log2 axis with the node counts.
func nodeTicks(p *plot.Plot, nodes []int) {
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	var ticks plot.ConstantTicks
	for _, n := range nodes {
		ticks = append(ticks, plot.Tick{Value: math.Log2(float64(n)), Label: fmt.Sprint(n)})
	}
	p.X.Tick.Marker = ticks
	lo, hi := math.Log2(float64(nodes[0])), math.Log2(float64(nodes[len(nodes)-1]))
	p.X.Min, p.X.Max = lo-0.3, hi+0.3
}

// logTicks sets a log10 y axis around ys.
func logTicks(p *plot.Plot, ys []float64) {
	p.Y.Min, p.Y.Max = math.Log10(slices.Min(ys)/1.5), math.Log10(slices.Max(ys)*1.5)
	p.Y.Tick.Marker = figure.Log10Ticks{}
}

func distinctContenders(points []Point) []Contender {
	var out []Contender
	for _, p := range points {
		if !slices.Contains(out, p.Contender) {
			out = append(out, p.Contender)
		}
	}
	return out
}
