package main

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// bars draws one bar per category at x = category index + Offset, with an
// optional min–max whisker. Width and Offset are in data units (categories
// are one unit apart), so several bar series and their whiskers line up
// side by side without knowing the canvas size; gonum's BarChart offsets
// bars in canvas units, which its error bars cannot follow.
type bars struct {
	Values []Summary // one per category; N == 0 draws nothing
	Offset float64
	Width  float64
	Color  color.Color
	Line   draw.LineStyle // outline and whiskers
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for i, s := range b.Values {
		if s.N == 0 {
			continue
		}
		x := float64(i) + b.Offset
		x0, x1 := trX(x-b.Width/2), trX(x+b.Width/2)
		y0, y1 := trY(0), trY(s.Median)
		rect := c.ClipPolygonY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		c.FillPolygon(b.Color, rect)
		c.StrokeLines(b.Line, c.ClipLinesY(append(rect, rect[0]))...)
		if s.N > 1 && s.Max > s.Min {
			xm := trX(x)
			whisker := (x1 - x0) / 4
			lo, hi := trY(s.Min), trY(s.Max)
			c.StrokeLines(b.Line, c.ClipLinesY(
				[]vg.Point{{X: xm, Y: lo}, {X: xm, Y: hi}},
				[]vg.Point{{X: xm - whisker, Y: lo}, {X: xm + whisker, Y: lo}},
				[]vg.Point{{X: xm - whisker, Y: hi}, {X: xm + whisker, Y: hi}},
			)...)
		}
	}
}

// DataRange implements plot.DataRanger: bars start at zero and reach the
// top of their whiskers.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin = b.Offset - b.Width/2 - 0.1
	xmax = float64(len(b.Values)-1) + b.Offset + b.Width/2 + 0.1
	for _, s := range b.Values {
		ymax = max(ymax, s.Max)
	}
	return xmin, xmax, 0, ymax
}

// Thumbnail implements plot.Thumbnailer for the legend.
func (b *bars) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y},
	}
	c.FillPolygon(b.Color, pts)
	c.StrokeLines(b.Line, append(pts, pts[0]))
}
