package h5fmt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

var (
	// ErrCorrupt marks on-disk structures that are damaged.
	ErrCorrupt = errors.New("corrupt HDF5 metadata")
	// ErrUnsupported marks structures this package does not read.
	ErrUnsupported = errors.New("unsupported HDF5 metadata")
)

// Signature starts an HDF5 superblock.
const Signature = "\x89HDF\r\n\x1a\n"

// FindSuperblock returns where the superblock lies in a file of size bytes:
// at offset 0 or, after a user block, at 512, 1024, 2048, ...; -1 if
// nowhere.
func FindSuperblock(r io.ReaderAt, size int64) (int64, error) {
	var b [len(Signature)]byte
	for off := int64(0); off+int64(len(b)) <= size; off = max(512, 2*off) {
		if _, err := r.ReadAt(b[:], off); err != nil {
			return -1, err
		}
		if string(b[:]) == Signature {
			return off, nil
		}
	}
	return -1, nil
}

// Superblock is what the walk needs from the superblock.
type Superblock struct {
	Size int64 // the file's size
	// Base is the absolute position of address 0: the superblock's own
	// position unless the file says otherwise.
	Base       int64
	OffsetSize int // bytes of an address
	LengthSize int // bytes of a length
}

// ReadSuperblock reads the superblock at offset at of a file of size bytes.
func ReadSuperblock(r io.ReaderAt, at, size int64) (Superblock, error) {
	var b [48]byte
	n, err := r.ReadAt(b[:], at)
	if n < 24 {
		return Superblock{}, fmt.Errorf("%w: superblock at %d: %v", ErrCorrupt, at, err)
	}
	if string(b[:8]) != Signature {
		return Superblock{}, fmt.Errorf("%w: no signature at %d", ErrCorrupt, at)
	}
	sb := Superblock{Size: size}
	var baseAt int
	switch v := b[8]; v {
	case 0, 1:
		sb.OffsetSize, sb.LengthSize = int(b[13]), int(b[14])
		baseAt = 24
		if v == 1 {
			baseAt = 28
		}
	case 2, 3:
		sb.OffsetSize, sb.LengthSize = int(b[9]), int(b[10])
		baseAt = 12
	default:
		return Superblock{}, fmt.Errorf("%w: superblock version %d", ErrUnsupported, v)
	}
	if !validSize(sb.OffsetSize) || !validSize(sb.LengthSize) || baseAt+sb.OffsetSize > n {
		return Superblock{}, fmt.Errorf("%w: superblock: offsets of %d bytes, lengths of %d", ErrCorrupt, sb.OffsetSize, sb.LengthSize)
	}
	base, ok := uintN(b[baseAt:], sb.OffsetSize)
	if !ok || base > uint64(size) {
		return Superblock{}, fmt.Errorf("%w: superblock: base address %d", ErrCorrupt, base)
	}
	sb.Base = int64(base)
	return sb, nil
}

func validSize(n int) bool { return n == 2 || n == 4 || n == 8 }

// uintN decodes a little-endian unsigned integer of n bytes (2, 4 or 8)
// from b; all ones (the undefined address) and short input are not ok.
func uintN(b []byte, n int) (uint64, bool) {
	if len(b) < n {
		return 0, false
	}
	var v uint64
	switch n {
	case 2:
		v = uint64(binary.LittleEndian.Uint16(b))
	case 4:
		v = uint64(binary.LittleEndian.Uint32(b))
	case 8:
		v = binary.LittleEndian.Uint64(b)
	default:
		return 0, false
	}
	undefined := uint64(1)<<(8*uint(n)) - 1 // all ones; 1<<64 is 0
	return v, v != undefined
}

// abs turns an address into a file position, checking that n bytes from
// it lie inside the file.
func (sb Superblock) abs(addr uint64, n int64) (int64, error) {
	pos := sb.Base + int64(addr)
	if addr > uint64(sb.Size) || n < 0 || pos > sb.Size-n {
		return 0, fmt.Errorf("%w: address %d (+%d bytes) outside the file of %d bytes", ErrCorrupt, addr, n, sb.Size)
	}
	return pos, nil
}
