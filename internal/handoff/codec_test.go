package handoff

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

var roundTripCases = []struct {
	name string
	m    Message
}{
	{"hello", Hello{LocalRank: 3, Pid: 123456}},
	{"hello-max", Hello{LocalRank: math.MaxUint32, Pid: math.MaxUint32}},
	{"batch-empty", Batch{ID: 7, Epoch: 1, Items: []Item{}}},
	{"batch", Batch{ID: 1<<40 + 5, Epoch: 9, Items: []Item{{Record: 0, Offset: 0, Length: 10, KeyOffset: 10, KeyLength: 3}, {Record: 42, Segment: 1, Offset: 4096, Length: 1 << 20, LabelOffset: 7, LabelLength: 8}, {Record: math.MaxInt64, Offset: math.MaxInt64 - 1, Length: 1, KeyOffset: math.MaxInt64 - 5, KeyLength: 5}}}},
	{"end-of-epoch", EndOfEpoch{Epoch: 12}},
	{"release", Release{ID: math.MaxUint64}},
	{"fail", Fail{Msg: "disk on fire: /data/x.mdb"}},
	{"fail-bad-input", Fail{Msg: "corrupt chunk", Kind: failure.Input}},
	{"fail-bad-option", Fail{Msg: "--cache 3: too small", Kind: failure.Argument}},
	{"fail-internal", Fail{Msg: "bug", Kind: failure.Internal}},
	{"fail-empty", Fail{}},
	{"fail-max", Fail{Msg: strings.Repeat("x", MaxFailMsg)}},
	{"bye", Bye{}},
	{"welcome", Welcome{Config: []byte(`{"rounds":3}`)}},
	{"welcome-empty", Welcome{Config: []byte{}}},
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range roundTripCases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Encode([]byte("prefix"), tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if string(b[:6]) != "prefix" {
				t.Fatalf("Encode clobbered dst: %q", b[:6])
			}
			got, err := Decode(b[6:])
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.m) {
				t.Fatalf("got %#v, want %#v", got, tc.m)
			}
		})
	}
}

// frame builds a frame by hand so the tests do not depend on Encode.
func frame(t Type, payload ...[]byte) []byte {
	p := bytes.Join(payload, nil)
	b := binary.LittleEndian.AppendUint32(nil, uint32(1+len(p)))
	b = append(b, byte(t))
	return append(b, p...)
}

func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func TestDecodeWireLayout(t *testing.T) {
	// A Batch written byte by byte from the documented layout.
	b := frame(TypeBatch, u64(5), u32(2), u32(1), u64(9), u32(1), u32(0), u64(100), u64(7), u64(107), u64(3), u64(110), u64(8))
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	want := Batch{ID: 5, Epoch: 2, Items: []Item{{Record: 9, Segment: 1, Offset: 100, Length: 7, KeyOffset: 107, KeyLength: 3, LabelOffset: 110, LabelLength: 8}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
	enc, _ := Encode(nil, want)
	if !bytes.Equal(enc, b) {
		t.Fatalf("Encode = %x, want %x", enc, b)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name  string
		frame []byte
		want  error
	}{
		{"empty", nil, ErrCorrupt},
		{"header-only-length", u32(1), ErrCorrupt},
		{"zero-length", append(u32(0), 1), ErrCorrupt},
		{"length-too-big", append(u32(MaxFrameSize+1), 1), ErrCorrupt},
		{"length-mismatch", append(u32(9), byte(TypeHello), 0, 0, 0, 0), ErrCorrupt},
		{"trailing-bytes", append(frame(TypeBye), 0), ErrCorrupt},
		{"unknown-type", frame(99), ErrProtocol},
		{"type-zero", frame(0), ErrProtocol},
		{"hello-short", frame(TypeHello, u32(1)), ErrCorrupt},
		{"hello-long", frame(TypeHello, u64(1), u32(1)), ErrCorrupt},
		{"release-short", frame(TypeRelease, u32(1)), ErrCorrupt},
		{"eoe-long", frame(TypeEndOfEpoch, u64(1)), ErrCorrupt},
		{"bye-payload", frame(TypeBye, u32(1)), ErrCorrupt},
		{"batch-short-header", frame(TypeBatch, u64(1)), ErrCorrupt},
		{"batch-count-too-big", frame(TypeBatch, u64(1), u32(0), u32(2), u64(1), u64(2), u64(3), u64(4), u64(5)), ErrCorrupt},
		{"batch-count-huge", frame(TypeBatch, u64(1), u32(0), u32(math.MaxUint32)), ErrCorrupt},
		{"batch-partial-item", frame(TypeBatch, u64(1), u32(0), u32(1), u64(1), u64(2)), ErrCorrupt},
		{"batch-negative-length", frame(TypeBatch, u64(1), u32(0), u32(1), u64(1), u64(2), u64(math.MaxUint64), u64(0), u64(0)), ErrCorrupt},
		{"batch-negative-record", frame(TypeBatch, u64(1), u32(0), u32(1), u64(1<<63), u64(2), u64(3), u64(0), u64(0)), ErrCorrupt},
		{"batch-negative-key", frame(TypeBatch, u64(1), u32(0), u32(1), u64(1), u64(2), u64(3), u64(1<<63), u64(1)), ErrCorrupt},
		{"batch-offset-overflow", frame(TypeBatch, u64(1), u32(0), u32(1), u64(1), u64(math.MaxInt64), u64(1)), ErrCorrupt},
		{"fail-too-long", frame(TypeFail, bytes.Repeat([]byte{'x'}, MaxFailMsg+1)), ErrCorrupt},
		{"fail-no-such-kind", frame(TypeFail, []byte{5, 'x'}), ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode(tc.frame)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Decode = %#v, %v; want %v", m, err, tc.want)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name string
		m    Message
		want error
	}{
		{"too-many-items", Batch{Items: make([]Item, MaxItems+1)}, ErrTooLarge},
		{"negative-offset", Batch{Items: []Item{{Offset: -1}}}, ErrCorrupt},
		{"fail-too-long", Fail{Msg: strings.Repeat("y", MaxFailMsg+1)}, ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Encode(nil, tc.m); !errors.Is(err, tc.want) {
				t.Fatalf("Encode err = %v, want %v", err, tc.want)
			}
		})
	}
	// The largest batch does fit.
	b, err := Encode(nil, Batch{Items: make([]Item, MaxItems)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(b); err != nil {
		t.Fatal(err)
	}
}

func TestFrameReaderSplitsAndJoins(t *testing.T) {
	var stream []byte
	var want []Message
	for _, tc := range roundTripCases {
		stream, _ = Encode(stream, tc.m)
		want = append(want, tc.m)
	}
	big := Batch{ID: 1, Items: make([]Item, 10000)} // larger than the initial buffer
	stream, _ = Encode(stream, big)
	want = append(want, big)
	for _, chunk := range []int{1, 3, 7, 4096, len(stream)} {
		fr := newFrameReader(&chunkReader{b: stream, n: chunk})
		for i, w := range want {
			m, err := fr.next()
			if err != nil {
				t.Fatalf("chunk %d: message %d: %v", chunk, i, err)
			}
			if !reflect.DeepEqual(m, w) {
				t.Fatalf("chunk %d: message %d: got %v, want %v", chunk, i, m.Type(), w.Type())
			}
		}
		if _, err := fr.next(); err == nil || err.Error() != "EOF" {
			t.Fatalf("chunk %d: at end: %v, want EOF", chunk, err)
		}
	}
	// A stream cut inside a frame is not a clean EOF.
	fr := newFrameReader(&chunkReader{b: stream[:len(stream)-1], n: 100})
	var err error
	for err == nil {
		_, err = fr.next()
	}
	if !isGone(err) || err.Error() == "EOF" {
		t.Fatalf("cut stream: %v, want unexpected EOF", err)
	}
}

// chunkReader returns at most n bytes per Read, like a socket under load.
type chunkReader struct {
	b []byte
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.b)
	r.b = r.b[k:]
	return k, nil
}

func FuzzDecode(f *testing.F) {
	for _, tc := range roundTripCases {
		b, _ := Encode(nil, tc.m)
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add(frame(TypeBatch, u64(1), u32(0), u32(math.MaxUint32)))
	f.Add(frame(99, u64(1)))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrProtocol) {
				t.Fatalf("error of no known class: %v", err)
			}
			return
		}
		// Whatever decodes must encode back to the same bytes.
		enc, err := Encode(nil, m)
		if err != nil {
			t.Fatalf("decoded %#v does not encode: %v", m, err)
		}
		if !bytes.Equal(enc, b) {
			t.Fatalf("re-encoding differs:\n got %x\nwant %x", enc, b)
		}
	})
}
