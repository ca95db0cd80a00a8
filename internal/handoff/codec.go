package handoff

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

// Frame layout (all integers little endian):
//
//	uint32 n          number of bytes that follow (type byte + payload), 1..MaxFrameSize
//	uint8  type
//	payload:
//	  Hello       uint32 localRank, uint32 pid
//	  Batch       uint64 id, uint32 epoch, uint32 count, count × {int64 record,
//	              uint32 segment, uint32 zero, int64 offset, int64 length, int64 key offset,
//	              int64 key length, int64 label offset, int64 label length}
//	  EndOfEpoch  uint32 epoch
//	  Release     uint64 id
//	  Fail        uint8 flags (bit 0: bad input), the message bytes (0..MaxFailMsg), length implied by n
//	  Bye         empty
//	  Welcome     the config bytes (0..MaxConfig), length implied by n
const (
	// lengthSize is the size of the frame's length prefix.
	lengthSize = 4
	// MaxFrameSize bounds n, the bytes after the length prefix, so a corrupt
	// length can never make a reader allocate more than this.
	MaxFrameSize = 4 << 20
	// itemSize is the encoded size of one Item.
	itemSize = 64
	// batchHeaderSize is the Batch payload before its items.
	batchHeaderSize = 8 + 4 + 4
	// MaxItems is the largest number of items a Batch frame can hold.
	MaxItems = (MaxFrameSize - 1 - batchHeaderSize) / itemSize
	// MaxFailMsg bounds the text of a Fail message.
	MaxFailMsg = 4096
	// MaxConfig bounds the config of a Welcome message.
	MaxConfig = 1 << 20
)

// Encode appends the frame of m to dst and returns the extended slice. It
// fails with ErrTooLarge when a Batch has more than MaxItems items or a Fail
// message is longer than MaxFailMsg, and with ErrCorrupt when an Item has a
// negative field (Decode would refuse it).
func Encode(dst []byte, m Message) ([]byte, error) {
	if err := checkEncodable(m); err != nil {
		return dst, err
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, byte(m.Type()))
	dst = m.appendPayload(dst)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-lengthSize))
	return dst, nil
}

func checkEncodable(m Message) error {
	switch m := m.(type) {
	case Batch:
		if len(m.Items) > MaxItems {
			return fmt.Errorf("%w: batch %d has %d items, at most %d fit in a frame", ErrTooLarge, m.ID, len(m.Items), MaxItems)
		}
		for i, it := range m.Items {
			if err := checkItem(it); err != nil {
				return fmt.Errorf("batch %d item %d: %w", m.ID, i, err)
			}
		}
	case Fail:
		if len(m.Msg) > MaxFailMsg {
			return fmt.Errorf("%w: fail message of %d bytes, at most %d", ErrTooLarge, len(m.Msg), MaxFailMsg)
		}
	case Welcome:
		if len(m.Config) > MaxConfig {
			return fmt.Errorf("%w: welcome config of %d bytes, at most %d", ErrTooLarge, len(m.Config), MaxConfig)
		}
	case nil:
		panic("ring: Encode of a nil Message")
	}
	return nil
}

func checkItem(it Item) error {
	if it.Record < 0 || !extentOK(it.Offset, it.Length) || !extentOK(it.KeyOffset, it.KeyLength) ||
		!extentOK(it.LabelOffset, it.LabelLength) {
		return fmt.Errorf("%w: item {record %d, value %d+%d, key %d+%d, label %d+%d} out of range",
			ErrCorrupt, it.Record, it.Offset, it.Length, it.KeyOffset, it.KeyLength, it.LabelOffset, it.LabelLength)
	}
	return nil
}

// extentOK reports whether off+n is a valid, non-overflowing byte range.
func extentOK(off, n int64) bool { return off >= 0 && n >= 0 && off <= math.MaxInt64-n }

// Decode decodes exactly one whole frame (length prefix included). It never
// panics: malformed bytes give ErrCorrupt, an unknown type byte ErrProtocol.
// The returned message does not alias frame.
func Decode(frame []byte) (Message, error) {
	if len(frame) < lengthSize+1 {
		return nil, fmt.Errorf("%w: frame of %d bytes is shorter than its header", ErrCorrupt, len(frame))
	}
	n := binary.LittleEndian.Uint32(frame)
	if err := checkFrameLength(n); err != nil {
		return nil, err
	}
	if uint64(n) != uint64(len(frame)-lengthSize) {
		return nil, fmt.Errorf("%w: frame says %d bytes follow, %d do", ErrCorrupt, n, len(frame)-lengthSize)
	}
	t, p := Type(frame[lengthSize]), frame[lengthSize+1:]
	switch t {
	case TypeHello:
		if err := wantPayload(t, p, 8); err != nil {
			return nil, err
		}
		return Hello{LocalRank: le32(p[0:]), Pid: le32(p[4:])}, nil
	case TypeBatch:
		return decodeBatch(p)
	case TypeEndOfEpoch:
		if err := wantPayload(t, p, 4); err != nil {
			return nil, err
		}
		return EndOfEpoch{Epoch: le32(p)}, nil
	case TypeRelease:
		if err := wantPayload(t, p, 8); err != nil {
			return nil, err
		}
		return Release{ID: le64(p)}, nil
	case TypeFail:
		if len(p) < 1 || len(p)-1 > MaxFailMsg || !failure.Kind(p[0]).Valid() {
			return nil, fmt.Errorf("%w: fail message of %d bytes (kind %#x), at most %d", ErrCorrupt, len(p), p[:min(len(p), 1)], MaxFailMsg+1)
		}
		return Fail{Msg: string(p[1:]), Kind: failure.Kind(p[0])}, nil
	case TypeBye:
		if err := wantPayload(t, p, 0); err != nil {
			return nil, err
		}
		return Bye{}, nil
	case TypeWelcome:
		if len(p) > MaxConfig {
			return nil, fmt.Errorf("%w: welcome config of %d bytes, at most %d", ErrCorrupt, len(p), MaxConfig)
		}
		return Welcome{Config: append([]byte{}, p...)}, nil
	}
	return nil, fmt.Errorf("%w: unknown message type %d", ErrProtocol, uint8(t))
}

// checkFrameLength validates the length prefix before anything is allocated
// or read for the frame.
func checkFrameLength(n uint32) error {
	if n == 0 || n > MaxFrameSize {
		return fmt.Errorf("%w: frame length %d outside 1..%d", ErrCorrupt, n, MaxFrameSize)
	}
	return nil
}

func wantPayload(t Type, p []byte, n int) error {
	if len(p) != n {
		return fmt.Errorf("%w: %v payload of %d bytes, want %d", ErrCorrupt, t, len(p), n)
	}
	return nil
}

func decodeBatch(p []byte) (Message, error) {
	if len(p) < batchHeaderSize {
		return nil, fmt.Errorf("%w: Batch payload of %d bytes is shorter than its header", ErrCorrupt, len(p))
	}
	b := Batch{ID: le64(p), Epoch: le32(p[8:])}
	count := uint64(le32(p[12:]))
	p = p[batchHeaderSize:]
	// Compare in uint64 so a huge count cannot overflow, and before the
	// allocation so a corrupt count cannot make us allocate.
	if count*itemSize != uint64(len(p)) {
		return nil, fmt.Errorf("%w: Batch %d says %d items, payload holds %d bytes of items", ErrCorrupt, b.ID, count, len(p))
	}
	b.Items = make([]Item, count)
	for i := range b.Items {
		q := p[i*itemSize:]
		if le32(q[12:]) != 0 {
			return nil, fmt.Errorf("%w: batch %d item %d: reserved bytes set", ErrCorrupt, b.ID, i)
		}
		it := Item{Record: int64(le64(q)), Segment: le32(q[8:]), Offset: int64(le64(q[16:])),
			Length: int64(le64(q[24:])), KeyOffset: int64(le64(q[32:])), KeyLength: int64(le64(q[40:])),
			LabelOffset: int64(le64(q[48:])), LabelLength: int64(le64(q[56:]))}
		if err := checkItem(it); err != nil {
			return nil, fmt.Errorf("batch %d item %d: %w", b.ID, i, err)
		}
		b.Items[i] = it
	}
	return b, nil
}

func (m Hello) appendPayload(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, m.LocalRank)
	return binary.LittleEndian.AppendUint32(b, m.Pid)
}

func (m Batch) appendPayload(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, m.ID)
	b = binary.LittleEndian.AppendUint32(b, m.Epoch)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(m.Items)))
	for _, it := range m.Items {
		b = binary.LittleEndian.AppendUint64(b, uint64(it.Record))
		b = binary.LittleEndian.AppendUint32(b, it.Segment)
		b = binary.LittleEndian.AppendUint32(b, 0)
		for _, v := range [...]int64{it.Offset, it.Length, it.KeyOffset, it.KeyLength, it.LabelOffset, it.LabelLength} {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

func (m EndOfEpoch) appendPayload(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, m.Epoch)
}

func (m Release) appendPayload(b []byte) []byte {
	return binary.LittleEndian.AppendUint64(b, m.ID)
}

func (m Fail) appendPayload(b []byte) []byte {
	return append(append(b, byte(m.Kind)), m.Msg...)
}

func (Bye) appendPayload(b []byte) []byte { return b }

func (m Welcome) appendPayload(b []byte) []byte { return append(b, m.Config...) }

func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
