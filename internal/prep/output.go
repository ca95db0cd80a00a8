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

// write stores m into dst, which holds at least w*h*3 elements.
func (f *outFormat) write(m rgb, dst []byte) {
	plane := m.W * m.H // elements per channel plane, with chw
	for y := range m.H {
		row := m.row(y)
		for x := range m.W {
			for c := range Channels {
				v := row[3*x+c]
				i := 3*(y*m.W+x) + c
				if f.chw {
					i = c*plane + y*m.W + x
				}
				switch f.dtype {
				case Uint8:
					dst[i] = v
				case Float16:
					binary.NativeEndian.PutUint16(dst[2*i:], f.f16[c][v])
				case Float32:
					binary.NativeEndian.PutUint32(dst[4*i:], f.f32[c][v])
				}
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
