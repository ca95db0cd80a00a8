package main

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/lmdbio/lmdbio/internal/kit/bench/figure"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure is one plot and its legend, drawn beside it.
type Figure = figure.Figure

// palette gives every mode and peer the same colour in every figure.
var palette = map[string]color.Color{
	"lmdb":                   rgb(0x9c755f),
	"lmm":                    rgb(0x76b7b2),
	"lmm+dio":                rgb(0xedc948),
	"lmm+dio+prov":           rgb(0xb07aa1),
	"lmm+dio+prov+coal":      rgb(0x59a14f),
	"lmm+dio+prov+coal+stag": rgb(0xff9da7),
	"default":                rgb(0xe15759),
	"torch-readahead":        rgb(0x4e79a7),
	"torch-noreadahead":      rgb(0xf28e2b),
	"torch-ddp":              rgb(0x2f4b7c),
	"caffe":                  rgb(0x555555),
}

// spare colours for modes and peers the palette does not know.
var spare = []color.Color{rgb(0x17becf), rgb(0xbcbd22), rgb(0x8c564b), rgb(0x7f7f7f)}

// cacheColors colour the stacked study's bars by cache state.
var cacheColors = map[string]color.Color{"cold": rgb(0x4e79a7), "warm": rgb(0xf28e2b)}

func rgb(v uint32) color.Color {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// colorOf returns the colour of a mode or peer, spare ones by first use.
func colorOf(name string, used map[string]color.Color) color.Color {
	if c, ok := palette[name]; ok {
		return c
	}
	if c, ok := used[name]; ok {
		return c
	}
	c := spare[len(used)%len(spare)]
	used[name] = c
	return c
}

// dashes styles the lines of the n-th group in a figure that shows several.
var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}

// Figures builds every plot of the report.
func Figures(rep *Report) ([]Figure, error) {
	var figs []Figure
	multi := multiConsumer(rep.Scaling)
	for _, t := range rep.Scaling {
		f, err := throughputFigure(t, "throughput_vs_ranks_"+fileSafe(t.Cache)+suffix(t.Group, multi))
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	for _, g := range distinct(rep.Studies, func(s StudyTable) Group { return s.Group }) {
		ts := filter(rep.Studies, func(s StudyTable) bool { return s.Group == g })
		figs = append(figs, studyFigure(ts, "stacked_study"+suffix(g, multi)))
	}
	for _, t := range rep.Epochs {
		name := fmt.Sprintf("epochs_%s_%s_%d", fileSafe(orDash(t.Storage)), fileSafe(t.Consumer), t.Ranks)
		figs = append(figs, epochFigure(t, name+"_"+fileSafe(t.Cache)))
	}
	if len(rep.FirstBatch) > 0 {
		f, err := firstBatchFigure(rep.FirstBatch, "first_batch_vs_ranks")
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	return figs, nil
}

// multiConsumer reports the storages measured with more than one consumer,
// whose file names must then name the consumer too.
func multiConsumer(ts []ScalingTable) map[string]bool {
	seen := map[string]string{}
	multi := map[string]bool{}
	for _, t := range ts {
		if c, ok := seen[t.Storage]; ok && c != t.Consumer {
			multi[t.Storage] = true
		}
		seen[t.Storage] = t.Consumer
	}
	return multi
}

// suffix is the file-name suffix of a group: "_STORAGE", plus "_CONSUMER"
// when the storage was measured with several consumers.
func suffix(g Group, multi map[string]bool) string {
	s := ""
	if g.Storage != "" {
		s += "_" + fileSafe(g.Storage)
	}
	if multi[g.Storage] && g.Consumer != "" {
		s += "_" + fileSafe(g.Consumer)
	}
	return s
}

// fileSafe keeps letters, digits, '-' and '.', so labels from the command
// line cannot leave the output directory.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-':
			return r
		}
		return '-'
	}, s)
}

// newPlot returns a plot with the common title and axis labels.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	return p
}

// rankTicks puts one labelled tick at every measured rank count, and pads
// the axis so the first and last points are not on the frame.
func rankTicks(p *plot.Plot, ranks []int) {
	var ticks plot.ConstantTicks
	for _, n := range ranks {
		ticks = append(ticks, plot.Tick{Value: float64(n), Label: fmt.Sprint(n)})
	}
	p.X.Tick.Marker = ticks
	lo, hi := float64(ranks[0]), float64(ranks[len(ranks)-1])
	pad := math.Max(0.5, 0.05*(hi-lo))
	p.X.Min, p.X.Max = lo-pad, hi+pad
}

// addSeries draws one line with points and adds it to the legend.
func addSeries(p *plot.Plot, l *plot.Legend, name string, xys plotter.XYs, c color.Color, dash []vg.Length, shape int, bold bool) error {
	if len(xys) == 0 {
		return nil
	}
	line, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return fmt.Errorf("plot %s: %w", name, err)
	}
	line.Color = c
	line.Dashes = dash
	line.Width = vg.Points(1.5)
	if bold {
		line.Width = vg.Points(3)
	}
	pts.Color = c
	pts.Shape = glyphs[shape%len(glyphs)]
	pts.Radius = vg.Points(3)
	if bold {
		pts.Shape, pts.Radius = draw.CircleGlyph{}, vg.Points(4)
	}
	p.Add(line, pts)
	l.Add(name, line, pts)
	return nil
}

var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}}

// headroom raises the top of the y axis so the highest line or bar does
// not sit on the frame.
func headroom(p *plot.Plot) {
	p.Y.Max *= 1.08
}

// addHLine draws a horizontal reference line across the x axis.
func addHLine(p *plot.Plot, l *plot.Legend, name string, y float64, c color.Color, dash []vg.Length) {
	line, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: y}, {X: p.X.Max, Y: y}})
	if err != nil {
		return // only for NaN or Inf, which parsing rejects
	}
	line.Color = c
	line.Dashes = dash
	line.Width = vg.Points(1.5)
	p.Add(line)
	l.Add(name, line)
}

// seriesXYs returns the measured points of one series.
func seriesXYs(ranks []int, cells []Summary) plotter.XYs {
	var xys plotter.XYs
	for i, c := range cells {
		if c.N > 0 {
			xys = append(xys, plotter.XY{X: float64(ranks[i]), Y: c.Median})
		}
	}
	return xys
}

func throughputFigure(t ScalingTable, name string) (Figure, error) {
	p := newPlot("Throughput vs ranks — "+heading(t.Group, t.Cache, ""), "ranks (learner processes)", "throughput delivered to learners (MB/s)")
	rankTicks(p, t.Ranks)
	l := figure.NewLegend()
	spares := map[string]color.Color{}
	for i, s := range t.Series {
		label, dash := s.Name, []vg.Length(nil)
		if s.Peer {
			label, dash = "peer "+s.Name, dashes[1]
		}
		if err := addSeries(p, &l, label, seriesXYs(t.Ranks, s.Cells), colorOf(s.Name, spares), dash, i, s.Name == DefaultMode || s.Name == FullStackMode); err != nil {
			return Figure{}, err
		}
	}
	if t.Limit > 0 {
		addHLine(p, &l, fmt.Sprintf("storage limit %s MB/s", fmtRate(t.Limit)), t.Limit, color.Black, dashes[1])
	}
	headroom(p)
	return Figure{Name: name, Plot: p, Legend: l}, nil
}

func studyFigure(ts []StudyTable, name string) Figure {
	var modes []string
	for _, t := range ts {
		for _, r := range t.Rows {
			modes = append(modes, r.Mode)
		}
	}
	modes = sortKnown(ModeOrder, modes)
	t0 := ts[0]
	p := newPlot("Stacked-optimisation study — "+strings.TrimPrefix(t0.Title()+" · ", " · ")+
		plural(t0.Ranks, "rank")+" on "+plural(t0.Nodes, "node"), "mode (each adds one optimisation)", "throughput delivered to learners (MB/s)")
	p.NominalX(modes...)
	p.X.Tick.Label.Rotation = math.Pi / 9
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	l := figure.NewLegend()
	width := 0.8 / float64(len(ts))
	for k, t := range ts {
		b := &bars{
			Values: make([]Summary, len(modes)),
			Offset: (float64(k) - float64(len(ts)-1)/2) * width,
			Width:  width * 0.95,
			Color:  cacheColor(t.Cache, k),
			Line:   draw.LineStyle{Color: color.Black, Width: vg.Points(0.75)},
		}
		for _, r := range t.Rows {
			b.Values[slices.Index(modes, r.Mode)] = r.MBPerS
		}
		p.Add(b)
		l.Add(t.Cache+" cache (median, min–max)", b)
	}
	p.X.Min, p.X.Max = -0.5, float64(len(modes))-0.5
	for k, t := range ts {
		if t.Limit > 0 {
			addHLine(p, &l, fmt.Sprintf("%s limit %s MB/s", t.Cache, fmtRate(t.Limit)), t.Limit, cacheColor(t.Cache, k), dashes[1])
		}
	}
	headroom(p)
	return Figure{Name: name, Plot: p, Legend: l}
}

// cacheColor colours the k-th cache state of a study.
func cacheColor(cache string, k int) color.Color {
	if c, ok := cacheColors[cache]; ok {
		return c
	}
	return spare[k%len(spare)]
}

// firstBatchFigure plots the slowest rank's time to first batch: cold
// cache where measured (what a job's start sees), one line style per group.
// The y axis is logarithmic when the times span a decade or more, so a flat
// line of tens of milliseconds stays visible beside a peer's seconds.
func firstBatchFigure(ts []FirstBatchTable, name string) (Figure, error) {
	var pick []FirstBatchTable
	for _, g := range distinct(ts, func(t FirstBatchTable) Group { return t.Group }) {
		in := filter(ts, func(t FirstBatchTable) bool { return t.Group == g })
		cold := filter(in, func(t FirstBatchTable) bool { return t.Cache == "cold" })
		if len(cold) > 0 {
			in = cold
		}
		pick = append(pick, in[0])
	}
	var ranks []int
	var all []float64
	for _, t := range pick {
		ranks = append(ranks, t.Ranks...)
		for _, s := range t.Series {
			for _, c := range s.Cells {
				if c.Max.N > 0 && c.Max.Median > 0 {
					all = append(all, c.Max.Median)
				}
			}
		}
	}
	slices.Sort(ranks)
	ranks = slices.Compact(ranks)
	u := unitFor(all)
	// A log axis when the times span a decade or more.
	logY := len(all) > 0 && slices.Max(all) >= 10*slices.Min(all)
	y := func(v float64) float64 {
		if logY {
			return math.Log10(v * u.scale)
		}
		return v * u.scale
	}
	storages := len(distinct(pick, func(t FirstBatchTable) string { return t.Storage })) > 1
	consumers := len(distinct(pick, func(t FirstBatchTable) string { return t.Consumer })) > 1
	caches := len(distinct(pick, func(t FirstBatchTable) string { return t.Cache })) > 1
	var common []string
	if s := StorageName(pick[0].Storage); s != "" && !storages {
		common = append(common, s)
	}
	if pick[0].Consumer != "" && !consumers {
		common = append(common, "consumer "+pick[0].Consumer)
	}
	if !caches {
		common = append(common, pick[0].Cache+" cache")
	}
	title := "Time to first batch vs ranks"
	if len(common) > 0 {
		title += " — " + strings.Join(common, " · ")
	}
	p := newPlot(title, "ranks (learner processes)", "first batch, slowest rank ("+u.name+")")
	rankTicks(p, ranks)
	l := figure.NewLegend()
	spares := map[string]color.Color{}
	for gi, t := range pick {
		var prefix []string
		if storages {
			prefix = append(prefix, orDash(StorageName(t.Storage)))
		}
		if consumers {
			prefix = append(prefix, t.Consumer)
		}
		if caches {
			prefix = append(prefix, t.Cache)
		}
		for i, s := range t.Series {
			var xys plotter.XYs
			for j, c := range s.Cells {
				if c.Max.N > 0 && c.Max.Median > 0 {
					xys = append(xys, plotter.XY{X: float64(t.Ranks[j]), Y: y(c.Max.Median)})
				}
			}
			label := s.Name
			if s.Peer {
				label = "peer " + s.Name
			}
			if len(prefix) > 0 {
				label = strings.Join(prefix, " · ") + ": " + label
			}
			if err := addSeries(p, &l, label, xys, colorOf(s.Name, spares), dashes[gi%len(dashes)], i, s.Name == DefaultMode || s.Name == FullStackMode); err != nil {
				return Figure{}, err
			}
		}
	}
	if logY {
		p.Y.Tick.Marker = figure.Log10Ticks{}
		p.Y.Min, p.Y.Max = y(slices.Min(all)/1.5), y(slices.Max(all)*1.5)
		p.Y.Label.Text = "first batch, slowest rank (" + u.name + ", log scale)"
		return Figure{Name: name, Plot: p, Legend: l}, nil
	}
	headroom(p)
	return Figure{Name: name, Plot: p, Legend: l}, nil
}
