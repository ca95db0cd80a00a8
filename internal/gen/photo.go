package gen

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
)

// Synthetic photographs for JPEG datasets: what a decoder and an
// augmentation pipeline meet in ImageNet (sizes around 500x375, smooth
// regions, sharp edges, texture, sensor noise), without shipping or
// downloading images. Random bytes would be no test: a JPEG of noise is
// several times larger than a photograph and decodes at another speed.

// JPEGQuality is the quality the photographs are encoded at, that of most
// ImageNet images.
const JPEGQuality = 90

// photoSize draws an ImageNet-like size: most photographs are 500 pixels
// on their long side in 4:3 or 3:2, a quarter are portrait, and some are
// larger or smaller.
func photoSize(rng *rand.Rand) (w, h int) {
	long := 500
	if rng.IntN(4) == 0 {
		long = 300 + rng.IntN(701)
	}
	aspects := []float64{4.0 / 3, 4.0 / 3, 4.0 / 3, 3.0 / 2, 3.0 / 2, 1, 16.0 / 9}
	short := int(math.Round(float64(long) / aspects[rng.IntN(len(aspects))]))
	if rng.IntN(4) == 0 {
		return short, long
	}
	return long, short
}

// Photo returns the JPEG of synthetic photograph i for seed, a function of
// (seed, i) alone.
func Photo(seed int64, i int) []byte {
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(i)^0x70686f746f))
	w, h := photoSize(rng)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	paint(img, rng)
	var b bytes.Buffer
	b.Grow(w * h / 2)
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: JPEGQuality}); err != nil {
		panic("gen: encoding a JPEG into memory: " + err.Error()) // cannot fail
	}
	return b.Bytes()
}

// colour is an RGB triple in 0-255.
type colour [3]float64

func randomColour(rng *rand.Rand) colour {
	return colour{rng.Float64() * 255, rng.Float64() * 255, rng.Float64() * 255}
}

// paint draws a scene: a two-colour gradient (sky and ground), a few
// ellipses and rectangles in their own colours, textured by value noise at
// four scales (down to foliage- and fabric-like 2-pixel detail), plus pixel
// noise like a camera sensor's. The amplitudes are set so that the JPEGs
// are about as large as photographs of the same size.
func paint(img *image.RGBA, rng *rand.Rand) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	top, bottom := randomColour(rng), randomColour(rng)
	figures := make([]figure, 4+rng.IntN(10))
	for k := range figures {
		figures[k] = randomFigure(rng, w, h)
	}
	tex := []noiseGrid{newNoiseGrid(rng, w, h, 96, 28), newNoiseGrid(rng, w, h, 24, 16),
		newNoiseGrid(rng, w, h, 6, 12), newNoiseGrid(rng, w, h, 2, 10)}
	// Grain: the sum of two random bytes less 255 has a standard deviation
	// of 104; scaled, a cheap stand-in for Gaussian sensor noise.
	grain := (4 + rng.Float64()*4) / 104
	row := make([]colour, w)
	for y := range h {
		t := float64(y) / float64(h)
		for x := range row {
			for ch := range 3 {
				row[x][ch] = top[ch]*(1-t) + bottom[ch]*t
			}
		}
		for k := range figures {
			x0, x1 := figures[k].span(y, w)
			for x := x0; x < x1; x++ {
				row[x] = figures[k].fill
			}
		}
		for x, c := range row {
			n := 0.0
			for k := range tex {
				n += tex[k].at(x, y)
			}
			r := rng.Uint64()
			o := img.PixOffset(x, y)
			for ch := range 3 {
				g := float64(int(r>>(16*ch)&0xff)+int(r>>(16*ch+8)&0xff)-255) * grain
				v := c[ch] + n*(0.8+0.2*float64(ch)) + g
				img.Pix[o+ch] = uint8(min(max(v, 0), 255))
			}
			img.Pix[o+3] = 255
		}
	}
}

// figure is an ellipse or a rectangle.
type figure struct {
	ellipse        bool
	cx, cy, rx, ry float64
	fill           colour
}

func randomFigure(rng *rand.Rand, w, h int) figure {
	return figure{
		ellipse: rng.IntN(2) == 0,
		cx:      rng.Float64() * float64(w), cy: rng.Float64() * float64(h),
		rx: (0.05 + rng.Float64()*0.3) * float64(w), ry: (0.05 + rng.Float64()*0.3) * float64(h),
		fill: randomColour(rng),
	}
}

// span returns the pixels [x0, x1) of row y that the figure covers (pixel
// centres inside it), within an image w pixels wide.
func (s *figure) span(y, w int) (x0, x1 int) {
	dy := (float64(y) + 0.5 - s.cy) / s.ry
	if math.Abs(dy) > 1 {
		return 0, 0
	}
	half := s.rx
	if s.ellipse {
		half *= math.Sqrt(1 - dy*dy)
	}
	x0 = max(int(math.Ceil(s.cx-half-0.5)), 0)
	x1 = min(int(math.Floor(s.cx+half-0.5))+1, w)
	return x0, max(x1, x0)
}

// noiseGrid is value noise: random values on a grid of cell pixels,
// interpolated bilinearly, of amplitude amp.
type noiseGrid struct {
	cell   float64
	cols   int
	values []float64
}

func newNoiseGrid(rng *rand.Rand, w, h, cell int, amp float64) noiseGrid {
	cols, rows := w/cell+2, h/cell+2
	g := noiseGrid{cell: float64(cell), cols: cols, values: make([]float64, cols*rows)}
	for i := range g.values {
		g.values[i] = (rng.Float64()*2 - 1) * amp
	}
	return g
}

func (g *noiseGrid) at(x, y int) float64 {
	fx, fy := float64(x)/g.cell, float64(y)/g.cell
	ix, iy := int(fx), int(fy)
	tx, ty := fx-float64(ix), fy-float64(iy)
	v := g.values[iy*g.cols+ix:]
	top := v[0]*(1-tx) + v[1]*tx
	bottom := v[g.cols]*(1-tx) + v[g.cols+1]*tx
	return top*(1-ty) + bottom*ty
}
