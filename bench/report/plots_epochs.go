package main

import (
	"fmt"
	"image/color"
	"math"

	"github.com/lmdbio/lmdbio/internal/kit/bench/figure"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// epochColors colour the bars of the first, second, third... epoch.
var epochColors = []color.Color{rgb(0x4e79a7), rgb(0xf28e2b), rgb(0x59a14f), rgb(0xe15759), rgb(0xb07aa1)}

// epochFigure draws every contender's epochs side by side: the time of
// each epoch (median, min–max), so a first epoch that reads storage stands
// beside later ones served from the node caches.
func epochFigure(t EpochTable, name string) Figure {
	var names []string
	for _, r := range t.Rows {
		label := plotName(r.Contender, r.Peer)
		if len(names) == 0 || names[len(names)-1] != label {
			names = append(names, label)
		}
	}
	p := newPlot("Epoch times — "+heading(t.Group, t.Cache, fmt.Sprintf("%s on %s", plural(t.Ranks, "rank"), plural(t.Nodes, "node"))),
		"contender", "seconds per epoch")
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 9
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	l := figure.NewLegend()
	width := 0.8 / float64(max(t.Epochs, 1))
	for e := 0; e < t.Epochs; e++ {
		b := &bars{
			Values: make([]Summary, len(names)),
			Offset: (float64(e) - float64(t.Epochs-1)/2) * width,
			Width:  width * 0.95,
			Color:  epochColors[e%len(epochColors)],
			Line:   draw.LineStyle{Color: color.Black, Width: vg.Points(0.75)},
		}
		for _, r := range t.Rows {
			if r.Epoch != e {
				continue
			}
			for i, n := range names {
				if n == plotName(r.Contender, r.Peer) {
					b.Values[i] = r.Seconds
				}
			}
		}
		p.Add(b)
		l.Add(fmt.Sprintf("epoch %d (median, min–max)", e+1), b)
	}
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	headroom(p)
	return Figure{Name: name, Plot: p, Legend: l}
}

// plotName is a contender's name in a plot, where Markdown does not apply.
func plotName(name string, peer bool) string {
	if peer {
		return "peer " + name
	}
	return name
}
