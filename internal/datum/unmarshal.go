package datum

import (
	"fmt"
	"math"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// Unmarshal decodes a Datum. The result's Data aliases b. Unknown fields
// are skipped; a known field with an unexpected wire type is skipped too,
// as protobuf parsers do. Malformed input returns an error matching
// ErrCorrupt.
func Unmarshal(b []byte) (Datum, error) {
	var d Datum
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return Datum{}, corrupt(0, n)
		}
		b = b[n:]
		if n = d.consumeField(num, typ, b); n < 0 {
			return Datum{}, corrupt(num, n)
		}
		b = b[n:]
	}
	return d, nil
}

// consumeField decodes one field value from b into d and returns its
// length, or a negative protowire error code.
func (d *Datum) consumeField(num protowire.Number, typ protowire.Type, b []byte) int {
	switch {
	case typ == protowire.VarintType && isInt32Field(num):
		v, n := protowire.ConsumeVarint(b)
		if n >= 0 {
			*d.int32Field(num) = int32(v) // protobuf truncates int32 varints
		}
		return n
	case typ == protowire.VarintType && num == fieldEncoded:
		v, n := protowire.ConsumeVarint(b)
		d.Encoded = v != 0
		return n
	case typ == protowire.BytesType && num == fieldData:
		v, n := protowire.ConsumeBytes(b)
		d.Data = v
		return n
	case typ == protowire.Fixed32Type && num == fieldFloatData:
		v, n := protowire.ConsumeFixed32(b)
		if n >= 0 {
			d.FloatData = append(d.FloatData, math.Float32frombits(v))
		}
		return n
	case typ == protowire.BytesType && num == fieldFloatData:
		return d.consumePackedFloats(b)
	default:
		return protowire.ConsumeFieldValue(num, typ, b)
	}
}

// consumePackedFloats decodes a packed float_data run.
func (d *Datum) consumePackedFloats(b []byte) int {
	v, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return n
	}
	if len(v)%4 != 0 {
		return errPackedLength
	}
	d.FloatData = slices.Grow(d.FloatData, len(v)/4)
	for ; len(v) > 0; v = v[4:] {
		f, _ := protowire.ConsumeFixed32(v)
		d.FloatData = append(d.FloatData, math.Float32frombits(f))
	}
	return n
}

func isInt32Field(num protowire.Number) bool {
	return num == fieldChannels || num == fieldHeight || num == fieldWidth || num == fieldLabel
}

// int32Field returns the address of the int32 field num.
func (d *Datum) int32Field(num protowire.Number) *int32 {
	switch num {
	case fieldChannels:
		return &d.Channels
	case fieldHeight:
		return &d.Height
	case fieldWidth:
		return &d.Width
	default:
		return &d.Label
	}
}

// errPackedLength is consumeField's code for a packed float_data run whose
// length is not a multiple of four; protowire's codes are -1 to -7 or so.
const errPackedLength = -100

// corrupt describes a decoding failure in field num (0: in a tag).
func corrupt(num protowire.Number, code int) error {
	what := "bad packed float_data length"
	if code != errPackedLength {
		what = protowire.ParseError(code).Error()
	}
	if num == 0 {
		return fmt.Errorf("%w: tag: %s", ErrCorrupt, what)
	}
	return fmt.Errorf("%w: field %d: %s", ErrCorrupt, num, what)
}
