// Package figure writes gonum/plot figures with their legend beside the
// plot, as SVG and PNG, in the one style the benchmark report and the
// scale model share.
package figure

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one plot and its legend, drawn beside it; Name has no extension.
type Figure struct {
	Name   string
	Plot   *plot.Plot
	Legend plot.Legend
}

// NewLegend returns the style of every figure's legend, drawn beside the
// plot.
func NewLegend() plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = vg.Points(10)
	l.Padding = vg.Points(3)
	l.ThumbnailWidth = vg.Points(24)
	return l
}

// Figure size and PNG resolution: wide enough for the legend beside the
// plot, sharp enough to read when a README embeds the PNG.
const (
	figWidth  = 10 * vg.Inch
	figHeight = 5 * vg.Inch
	pngDPI    = 144
)

// Write writes f as DIR/NAME.svg and DIR/NAME.png and returns their paths.
func Write(dir string, f Figure) ([]string, error) {
	svg := vgsvg.New(figWidth, figHeight)
	png := vgimg.NewWith(vgimg.UseWH(figWidth, figHeight), vgimg.UseDPI(pngDPI))
	var paths []string
	for _, out := range []struct {
		ext    string
		canvas vg.CanvasSizer
		writer io.WriterTo
	}{
		{".svg", svg, svg},
		{".png", png, vgimg.PngCanvas{Canvas: png}},
	} {
		f.draw(draw.New(out.canvas))
		path := filepath.Join(dir, f.Name+out.ext)
		if err := writeFile(path, out.writer); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// WriteAll writes every figure into dir, which it creates if missing, and
// returns the paths written, up to the first failure.
func WriteAll(dir string, figs []Figure) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, f := range figs {
		paths, err := Write(dir, f)
		written = append(written, paths...)
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// draw paints the plot on the left and its legend on the right.
func (f Figure) draw(dc draw.Canvas) {
	dc.FillPolygon(color.White, []vg.Point{
		dc.Min, {X: dc.Max.X, Y: dc.Min.Y}, dc.Max, {X: dc.Min.X, Y: dc.Max.Y},
	})
	pad := vg.Points(10)
	r := f.Legend.Rectangle(dc)
	lw := r.Max.X - r.Min.X
	width := dc.Max.X - dc.Min.X
	f.Plot.Draw(draw.Crop(dc, 0, -(lw + 2*pad), 0, 0))
	f.Legend.Draw(draw.Crop(dc, width-lw-pad, -pad, 0, -3*pad))
}

// writeFile creates path and writes w to it, reporting a failed close.
func writeFile(path string, w io.WriterTo) (err error) {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write %s: %w", path, cerr)
		}
	}()
	if _, err := w.WriteTo(out); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Log10Ticks labels an axis that carries log10 of the data with the data's
// own values, 1, 2 and 5 times each power of ten, unlabelled ticks between.
// Plotting log10 on a linear axis stands in for gonum's log scale, whose
// axis-label placement assumes a linear axis and squeezes the plot.
type Log10Ticks struct{}

// Ticks implements plot.Ticker.
func (Log10Ticks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for d := math.Floor(lo); d <= math.Ceil(hi); d++ {
		for m := 1; m <= 9; m++ {
			v := math.Log10(float64(m)) + d
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(float64(m)*math.Pow(10, d), 'f', max(0, int(-d)), 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}
