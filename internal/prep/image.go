package prep

// rgb is an 8-bit RGB image, packed (3 bytes a pixel), rows Stride bytes
// apart. It may be a view into a larger image (a crop), so code walks it
// by rows and never assumes Pix is W*H*3 long.
type rgb struct {
	Pix    []byte
	W, H   int
	Stride int
}

// row returns the 3*W bytes of row y.
func (m rgb) row(y int) []byte {
	o := y * m.Stride
	return m.Pix[o : o+3*m.W]
}

// crop returns the view of the w x h box whose top-left pixel is (x, y);
// the box must lie inside m.
func (m rgb) crop(x, y, w, h int) rgb {
	if x < 0 || y < 0 || w < 1 || h < 1 || x+w > m.W || y+h > m.H {
		panic("prep: crop box outside the image")
	}
	o := y*m.Stride + 3*x
	return rgb{Pix: m.Pix[o : o+(h-1)*m.Stride+3*w], W: w, H: h, Stride: m.Stride}
}

// flipInPlace mirrors m left to right.
func (m rgb) flipInPlace() {
	for y := range m.H {
		r := m.row(y)
		for a, b := 0, 3*(m.W-1); a < b; a, b = a+3, b-3 {
			r[a], r[b] = r[b], r[a]
			r[a+1], r[b+1] = r[b+1], r[a+1]
			r[a+2], r[b+2] = r[b+2], r[a+2]
		}
	}
}

// newRGB returns a packed w x h image in buf's storage, growing it when it
// is too small; buf is updated so the storage is reused next time.
func newRGB(buf *[]byte, w, h int) rgb {
	n := 3 * w * h
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	return rgb{Pix: (*buf)[:n], W: w, H: h, Stride: 3 * w}
}
