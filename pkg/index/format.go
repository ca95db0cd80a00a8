package index

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Serialised index, version 2. All integers little-endian.
//
//	off  size      field
//	0    8         magic "LMDBIOIX"
//	8    4         version (2)
//	12   4         database page size (0 when there are no records)
//	16   8         identity: file size (int64)
//	24   8         identity: txn id (uint64)
//	32   8         identity: mtime, ns (int64)
//	40   8         record count n
//	48   8         key blob length k
//	56   4(n+1)    key offsets into the blob (uint32), 0 first, k last
//	     8n        value offsets in the data file (int64)
//	     4n        value lengths (uint32)
//	     k         key blob
//	     4         CRC-32C (Castagnoli) of all bytes before it
//
// Version 1 had zero where the page size is; its files are rebuilt.
const (
	magic         = "LMDBIOIX"
	formatVersion = 2
	headerSize    = 56
	trailerSize   = 4
	// perRecord is the fixed bytes each record adds: key offset, value
	// offset and value length.
	perRecord = 4 + 8 + 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var le = binary.LittleEndian

// MarshalBinary serialises the index (encoding.BinaryMarshaler).
func (x *Index) MarshalBinary() ([]byte, error) {
	n := x.Len()
	keyOff := x.keyOff
	if len(keyOff) == 0 { // zero Index
		keyOff = []uint32{0}
	}
	b := make([]byte, 0, headerSize+4+perRecord*n+len(x.keys)+trailerSize)
	b = append(b, magic...)
	b = le.AppendUint32(b, formatVersion)
	b = le.AppendUint32(b, uint32(x.psize))
	b = le.AppendUint64(b, uint64(x.id.Size))
	b = le.AppendUint64(b, x.id.TxnID)
	b = le.AppendUint64(b, uint64(x.id.MtimeNs))
	b = le.AppendUint64(b, uint64(n))
	b = le.AppendUint64(b, uint64(len(x.keys)))
	for _, o := range keyOff {
		b = le.AppendUint32(b, o)
	}
	for _, o := range x.off {
		b = le.AppendUint64(b, uint64(o))
	}
	for _, s := range x.size {
		b = le.AppendUint32(b, s)
	}
	b = append(b, x.keys...)
	b = le.AppendUint32(b, crc32.Checksum(b, castagnoli))
	return b, nil
}

func corruptf(format string, args ...any) error {
	return fmt.Errorf("index: %s: %w", fmt.Sprintf(format, args...), ErrCorrupt)
}

// Unmarshal parses and validates a serialised index. The result does not
// alias b. Any inconsistency returns an error wrapping ErrCorrupt.
func Unmarshal(b []byte) (*Index, error) {
	if len(b) < headerSize+4+trailerSize {
		return nil, corruptf("%d bytes is too short", len(b))
	}
	if string(b[:8]) != magic {
		return nil, corruptf("bad magic %q", b[:8])
	}
	if v := le.Uint32(b[8:]); v != formatVersion {
		return nil, corruptf("unsupported version %d (want %d)", v, formatVersion)
	}

	body := b[:len(b)-trailerSize]
	if got, want := crc32.Checksum(body, castagnoli), le.Uint32(b[len(body):]); got != want {
		return nil, corruptf("checksum mismatch (computed %08x, stored %08x)", got, want)
	}
	id := Identity{
		Size:    int64(le.Uint64(b[16:])),
		TxnID:   le.Uint64(b[24:]),
		MtimeNs: int64(le.Uint64(b[32:])),
	}
	n, k := le.Uint64(b[40:]), le.Uint64(b[48:])
	// Check the counts against the input before sizing anything by them.
	if id.Size < 0 || n > uint64(len(b))/perRecord || k > uint64(len(b)) {
		return nil, corruptf("counts (size %d, %d records, %d key bytes) do not fit in %d bytes", id.Size, n, k, len(b))
	}
	if want := headerSize + 4 + perRecord*n + k + trailerSize; want != uint64(len(b)) {
		return nil, corruptf("%d records and %d key bytes need %d bytes, have %d", n, k, want, len(b))
	}
	psize := le.Uint32(b[12:])
	if !validPageSize(psize) && (psize != 0 || n != 0) {
		return nil, corruptf("bad page size %d", psize)
	}
	x := &Index{
		id:     id,
		psize:  int(psize),
		keyOff: make([]uint32, n+1),
		off:    make([]int64, n),
		size:   make([]uint32, n),
	}
	p := b[headerSize:]
	prev := uint32(0)
	for i := range x.keyOff {
		o := le.Uint32(p[4*i:])
		if o < prev || (i == 0 && o != 0) {
			return nil, corruptf("key offset %d of record %d is out of order", o, i)
		}
		x.keyOff[i], prev = o, o
	}
	if uint64(prev) != k {
		return nil, corruptf("key offsets end at %d, blob has %d bytes", prev, k)
	}
	p = p[4*(n+1):]
	for i := range x.off {
		x.off[i] = int64(le.Uint64(p[8*i:]))
	}
	p = p[8*n:]
	for i := range x.size {
		s := le.Uint32(p[4*i:])
		o := x.off[i]
		if o < 0 || o > id.Size || int64(s) > id.Size-o {
			return nil, corruptf("record %d extent %d+%d outside the %d-byte file", i, o, s, id.Size)
		}
		x.size[i] = s
		if err := x.checkPlace(i); err != nil {
			return nil, err
		}
		x.total += int64(s)
	}
	p = p[4*n:]
	x.keys = append([]byte(nil), p[:k]...)
	return x, nil
}
