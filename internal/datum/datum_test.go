package datum

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"
)

// equal compares datums, floats by bit pattern so NaNs compare too, and
// treats nil and empty slices alike.
func equal(a, b Datum) bool {
	return a.Channels == b.Channels && a.Height == b.Height && a.Width == b.Width &&
		bytes.Equal(a.Data, b.Data) && a.Label == b.Label && a.Encoded == b.Encoded &&
		slices.EqualFunc(a.FloatData, b.FloatData, func(x, y float32) bool {
			return math.Float32bits(x) == math.Float32bits(y)
		})
}

// Wire bytes worked out by hand from the protobuf encoding rules.
var marshalTests = []struct {
	name string
	d    Datum
	wire []byte
}{
	{
		name: "raw image as convert_imageset writes it",
		d:    Datum{Channels: 3, Height: 2, Width: 1, Data: []byte{1, 2, 3, 4, 5, 6}, Label: 5},
		wire: []byte{0x08, 3, 0x10, 2, 0x18, 1, 0x22, 6, 1, 2, 3, 4, 5, 6, 0x28, 5, 0x38, 0},
	},
	{
		name: "encoded image as convert_imageset --encoded writes it",
		d:    Datum{Data: []byte("JPG"), Label: 7, Encoded: true},
		wire: []byte{0x22, 3, 'J', 'P', 'G', 0x28, 7, 0x38, 1},
	},
	{
		name: "encoded image with shape",
		d:    Datum{Channels: 3, Width: 300, Data: []byte("P"), Encoded: true},
		wire: []byte{0x08, 3, 0x18, 0xac, 0x02, 0x22, 1, 'P', 0x28, 0, 0x38, 1},
	},
	{
		name: "float data, unpacked as proto2 declares it",
		d:    Datum{Channels: 1, Height: 1, Width: 2, FloatData: []float32{1, -2.5}},
		wire: []byte{0x08, 1, 0x10, 1, 0x18, 2, 0x28, 0,
			0x35, 0x00, 0x00, 0x80, 0x3f, 0x35, 0x00, 0x00, 0x20, 0xc0, 0x38, 0},
	},
	{
		name: "negative label takes ten bytes",
		d:    Datum{Channels: 1, Height: 1, Width: 1, Data: []byte{9}, Label: -1},
		wire: []byte{0x08, 1, 0x10, 1, 0x18, 1, 0x22, 1, 9,
			0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x38, 0},
	},
	{
		name: "zero datum",
		d:    Datum{},
		wire: []byte{0x08, 0, 0x10, 0, 0x18, 0, 0x22, 0, 0x28, 0, 0x38, 0},
	},
	{
		name: "large label and data length",
		d:    Datum{Channels: 1, Height: 1, Width: 200, Data: bytes.Repeat([]byte{7}, 200), Label: 1 << 20},
		wire: slices.Concat([]byte{0x08, 1, 0x10, 1, 0x18, 0xc8, 0x01, 0x22, 0xc8, 0x01},
			bytes.Repeat([]byte{7}, 200), []byte{0x28, 0x80, 0x80, 0x40, 0x38, 0}),
	},
}

func TestMarshal(t *testing.T) {
	for _, tt := range marshalTests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []byte("prefix")
			got := tt.d.Marshal(slices.Clone(prefix))
			if !bytes.Equal(got, append(prefix, tt.wire...)) {
				t.Errorf("Marshal = % x\nwant       % x", got[len(prefix):], tt.wire)
			}
			if n := tt.d.Size(); n != len(tt.wire) {
				t.Errorf("Size = %d, want %d", n, len(tt.wire))
			}
			back, err := Unmarshal(tt.wire)
			if err != nil || !equal(back, tt.d) {
				t.Errorf("Unmarshal = %+v, %v; want %+v", back, err, tt.d)
			}
		})
	}
}

func TestUnmarshal(t *testing.T) {
	tests := []struct {
		name string
		wire []byte
		want Datum
	}{
		{"empty", nil, Datum{}},
		{"packed floats", []byte{0x32, 8, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0}, Datum{FloatData: []float32{1, -2.5}}},
		{"packed and unpacked floats mix", []byte{0x35, 0x00, 0x00, 0x80, 0x3f, 0x32, 4, 0x00, 0x00, 0x20, 0xc0, 0x32, 0},
			Datum{FloatData: []float32{1, -2.5}}},
		{"fields in any order", []byte{0x38, 1, 0x28, 4, 0x22, 1, 'x', 0x08, 3}, Datum{Channels: 3, Data: []byte("x"), Label: 4, Encoded: true}},
		{"last scalar wins", []byte{0x08, 3, 0x08, 1, 0x22, 1, 'a', 0x22, 1, 'b'}, Datum{Channels: 1, Data: []byte("b")}},
		{"unknown fields skipped", []byte{
			0x48, 0x96, 0x01, // field 9 varint
			0x51, 1, 2, 3, 4, 5, 6, 7, 8, // field 10 fixed64
			0x5b, 0x08, 1, 0x5c, // field 11 group holding a varint
			0x62, 2, 'h', 'i', // field 12 bytes
			0x10, 5,
		}, Datum{Height: 5}},
		{"known field with wrong wire type is skipped", []byte{0x0d, 1, 0, 0, 0, 0x18, 2}, Datum{Width: 2}},
		{"int32 truncated from 64 bits", []byte{0x28, 0xff, 0xff, 0xff, 0xff, 0x1f}, Datum{Label: -1}},
		{"non-canonical bool", []byte{0x38, 0x80, 0x01}, Datum{Encoded: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Unmarshal(tt.wire)
			if err != nil || !equal(got, tt.want) {
				t.Errorf("Unmarshal(% x) = %+v, %v; want %+v", tt.wire, got, err, tt.want)
			}
		})
	}
}

func TestUnmarshalCorrupt(t *testing.T) {
	tests := []struct {
		name string
		wire []byte
	}{
		{"truncated tag", []byte{0x80}},
		{"field number zero", []byte{0x00, 1}},
		{"truncated varint", []byte{0x08, 0x80}},
		{"varint too long", []byte{0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
		{"data longer than input", []byte{0x22, 5, 'a', 'b'}},
		{"truncated fixed32", []byte{0x35, 0, 0}},
		{"packed floats not a multiple of 4", []byte{0x32, 3, 1, 2, 3}},
		{"lone end group", []byte{0x0c}},
		{"unterminated group", []byte{0x5b, 0x08, 1}},
		{"reserved wire type", []byte{0x0e}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Unmarshal(tt.wire)
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("Unmarshal(% x) = %+v, %v; want ErrCorrupt", tt.wire, got, err)
			}
		})
	}
}

func TestUnmarshalAliasesInput(t *testing.T) {
	wire := (&Datum{Data: []byte("pixels")}).Marshal(nil)
	d, err := Unmarshal(wire)
	if err != nil {
		t.Fatal(err)
	}
	wire[bytes.Index(wire, []byte("pixels"))] = 'P'
	if string(d.Data) != "Pixels" {
		t.Errorf("Data = %q: does not alias the input", d.Data)
	}
}

func FuzzUnmarshal(f *testing.F) {
	for _, tt := range marshalTests {
		f.Add(tt.wire)
	}
	f.Add([]byte{0x32, 8, 0, 0, 0x80, 0x3f, 0, 0, 0x20, 0xc0})
	f.Add([]byte{0x5b, 0x08, 1, 0x5c, 0x10, 5})
	f.Add([]byte{0x32, 3, 1, 2, 3})
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Unmarshal(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		again, err := Unmarshal(d.Marshal(nil))
		if err != nil || !equal(again, d) {
			t.Fatalf("re-encoding changed %+v into %+v, %v", d, again, err)
		}
	})
}
