package datum

import (
	"math"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// Marshal appends the encoding of d to dst and returns the extended slice.
//
// Fields go out in field-number order, and a proto2 encoder writes a field
// only when it was set, so Marshal sets the fields Caffe's tools set:
// label and encoded always; channels, height and width unless the datum is
// encoded (then only when non-zero); data unless it is empty and FloatData
// is used instead; float_data unpacked, as caffe.proto declares it. Raw and
// encoded records of convert_imageset come out byte-for-byte the same.
func (d *Datum) Marshal(dst []byte) []byte {
	dst = slices.Grow(dst, d.Size())
	for _, f := range d.shapeFields() {
		dst = appendInt32(dst, f.num, f.v)
	}
	if d.writesData() {
		dst = protowire.AppendTag(dst, fieldData, protowire.BytesType)
		dst = protowire.AppendBytes(dst, d.Data)
	}
	dst = appendInt32(dst, fieldLabel, d.Label)
	for _, f := range d.FloatData {
		dst = protowire.AppendTag(dst, fieldFloatData, protowire.Fixed32Type)
		dst = protowire.AppendFixed32(dst, math.Float32bits(f))
	}
	dst = protowire.AppendTag(dst, fieldEncoded, protowire.VarintType)
	return protowire.AppendVarint(dst, protowire.EncodeBool(d.Encoded))
}

// Size returns the length of d's encoding.
func (d *Datum) Size() int {
	n := 0
	for _, f := range d.shapeFields() {
		n += sizeInt32(f.num, f.v)
	}
	if d.writesData() {
		n += protowire.SizeTag(fieldData) + protowire.SizeBytes(len(d.Data))
	}
	n += sizeInt32(fieldLabel, d.Label)
	n += len(d.FloatData) * (protowire.SizeTag(fieldFloatData) + protowire.SizeFixed32())
	return n + protowire.SizeTag(fieldEncoded) + 1
}

type int32Field struct {
	num protowire.Number
	v   int32
}

// shapeFields returns the shape fields Marshal writes, in order.
func (d *Datum) shapeFields() []int32Field {
	all := [3]int32Field{{fieldChannels, d.Channels}, {fieldHeight, d.Height}, {fieldWidth, d.Width}}
	out := all[:0]
	for _, f := range all {
		if !d.Encoded || f.v != 0 {
			out = append(out, f)
		}
	}
	return out
}

// writesData reports whether Marshal writes the data field.
func (d *Datum) writesData() bool { return len(d.Data) > 0 || len(d.FloatData) == 0 }

// appendInt32 appends an int32 field; negative values take ten bytes, as
// protobuf sign-extends them to 64 bits.
func appendInt32(b []byte, num protowire.Number, v int32) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(int64(v)))
}

func sizeInt32(num protowire.Number, v int32) int {
	return protowire.SizeTag(num) + protowire.SizeVarint(uint64(int64(v)))
}
