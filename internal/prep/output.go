package prep

import (
	"encoding/binary"
	"math"
)

// outFormat writes the final RGB image into the caller's slot: layout
// (HWC or CHW) and element type, with ToTensor and Normalize folded into a
// table per channel. A table is exact: it holds for each of the 256 byte
// values what torch computes for it.
type outFormat struct {
	dtype DType
	chw   bool
	f32   [Channels][256]uint32 // float32 bits
	f16   [Channels][256]uint16 // float16 bits
}

// init fills the tables: x/255 in float32 (ToTensor), then (v-mean)/std
// in float32 (Normalize, whose mean and std torch holds as float32).
func (f *outFormat) init(normalize *Step) {
	for c := range Channels {
		for x := range 256 {
			v := float32(x) / 255
			if normalize != nil {
				v = (v - float32(normalize.Mean[c])) / float32(normalize.Std[c])
			}
			f.f32[c][x] = math.Float32bits(v)
			f.f16[c][x] = float16Bits(v)
		}
	}
}

// write stores m into dst, which holds at least w*h*3 elements: one loop
// per layout and type, as the per-element choice would cost as much as the
// copy.
func (f *outFormat) write(m rgb, dst []byte) {
	plane := m.W * m.H // elements per channel plane, with chw
	for y := range m.H {
		row := m.row(y)
		o := y * m.W // element index of the row's first pixel
		switch {
		case f.dtype == Uint8 && !f.chw:
			copy(dst[3*o:], row)
		case f.dtype == Uint8:
			r, g, b := dst[o:o+m.W], dst[plane+o:plane+o+m.W], dst[2*plane+o:2*plane+o+m.W]
			for x := range m.W {
				p := row[3*x : 3*x+3]
				r[x], g[x], b[x] = p[0], p[1], p[2]
			}
		case f.dtype == Float16 && !f.chw:
			d := dst[6*o : 6*(o+m.W)]
			for x := range m.W {
				p, q := row[3*x:3*x+3], d[6*x:6*x+6]
				binary.NativeEndian.PutUint16(q[0:], f.f16[0][p[0]])
				binary.NativeEndian.PutUint16(q[2:], f.f16[1][p[1]])
				binary.NativeEndian.PutUint16(q[4:], f.f16[2][p[2]])
			}
		case f.dtype == Float16:
			r, g, b := dst[2*o:2*(o+m.W)], dst[2*(plane+o):2*(plane+o+m.W)], dst[2*(2*plane+o):2*(2*plane+o+m.W)]
			for x := range m.W {
				p := row[3*x : 3*x+3]
				binary.NativeEndian.PutUint16(r[2*x:], f.f16[0][p[0]])
				binary.NativeEndian.PutUint16(g[2*x:], f.f16[1][p[1]])
				binary.NativeEndian.PutUint16(b[2*x:], f.f16[2][p[2]])
			}
		case !f.chw:
			d := dst[12*o : 12*(o+m.W)]
			for x := range m.W {
				p, q := row[3*x:3*x+3], d[12*x:12*x+12]
				binary.NativeEndian.PutUint32(q[0:], f.f32[0][p[0]])
				binary.NativeEndian.PutUint32(q[4:], f.f32[1][p[1]])
				binary.NativeEndian.PutUint32(q[8:], f.f32[2][p[2]])
			}
		default:
			r, g, b := dst[4*o:4*(o+m.W)], dst[4*(plane+o):4*(plane+o+m.W)], dst[4*(2*plane+o):4*(2*plane+o+m.W)]
			for x := range m.W {
				p := row[3*x : 3*x+3]
				binary.NativeEndian.PutUint32(r[4*x:], f.f32[0][p[0]])
				binary.NativeEndian.PutUint32(g[4*x:], f.f32[1][p[1]])
				binary.NativeEndian.PutUint32(b[4*x:], f.f32[2][p[2]])
			}
		}
	}
}

// float16Bits rounds f to the nearest IEEE 754 half-precision value, ties
// to even, as torch's Tensor.half() does; overflow gives infinity.
func float16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b>>23&0xff == 0xff && mant != 0:
		return sign | 0x7e00 // NaN
	case b>>23&0xff == 0xff || exp >= 31:
		return sign | 0x7c00 // infinity
	case exp < -10:
		return sign // below half the smallest subnormal: zero
	case exp <= 0:
		// Subnormal: the significand with its implicit bit, shifted so
		// that one unit is 2^-24.
		m := mant | 0x800000
		shift := uint(14 - exp)
		half := uint32(1) << (shift - 1)
		return sign | uint16((m+half-1+(m>>shift)&1)>>shift)
	}
	// Normal: drop 13 bits, ties to even; a carry out of the significand
	// rightly increments the exponent (to infinity at the top).
	r := (mant + 0xfff + (mant>>13)&1) >> 13
	return sign | (uint16(exp)<<10 + uint16(r))
}
