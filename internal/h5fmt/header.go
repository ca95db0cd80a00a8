package h5fmt

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Object header message types.
const (
	msgLayout       = 0x0008
	msgContinuation = 0x0010
)

// NoBTree is the B-tree address of a chunked dataset without chunks.
const NoBTree = ^uint64(0)

// maxHeaderBlocks bounds the continuation blocks of one object header.
const maxHeaderBlocks = 1 << 10

// ChunkIndex finds, in the object header of a chunked dataset at address
// header, its layout message and returns the address of the v1 B-tree that
// indexes its chunks, NoBTree when no chunk was ever written, and the
// chunk's dimensions (the dataset's rank plus one, the element size).
// Layouts other than version 3 (which newer file formats write, with other
// chunk indexes) give ErrUnsupported.
func ChunkIndex(r io.ReaderAt, sb Superblock, header uint64) (btree uint64, dims []uint32, err error) {
	var layout []byte
	err = walkHeader(r, sb, header, func(typ int, data []byte) bool {
		if typ == msgLayout {
			layout = data
			return false
		}
		return true
	})
	if err != nil {
		return 0, nil, err
	}
	if layout == nil {
		return 0, nil, fmt.Errorf("%w: object header at %d has no layout message", ErrCorrupt, header)
	}
	return parseLayout(layout, sb)
}

// parseLayout reads a version 3 layout message of the chunked class.
func parseLayout(b []byte, sb Superblock) (uint64, []uint32, error) {
	if len(b) < 3 {
		return 0, nil, fmt.Errorf("%w: layout message of %d bytes", ErrCorrupt, len(b))
	}
	if b[0] != 3 {
		return 0, nil, fmt.Errorf("%w: layout message version %d", ErrUnsupported, b[0])
	}
	if b[1] != 2 {
		return 0, nil, fmt.Errorf("%w: layout class %d, not chunked", ErrUnsupported, b[1])
	}
	rank := int(b[2])
	if rank < 2 || rank > 33 || len(b) < 3+sb.OffsetSize+4*rank {
		return 0, nil, fmt.Errorf("%w: chunked layout of %d dimensions in %d bytes", ErrCorrupt, rank, len(b))
	}
	btree, ok := uintN(b[3:], sb.OffsetSize)
	if !ok {
		btree = NoBTree
	}
	dims := make([]uint32, rank)
	for i := range dims {
		dims[i] = binary.LittleEndian.Uint32(b[3+sb.OffsetSize+4*i:])
		if dims[i] == 0 {
			return 0, nil, fmt.Errorf("%w: chunk dimension %d is 0", ErrCorrupt, i)
		}
	}
	return btree, dims, nil
}

// walkHeader calls fn for every message of the object header at address
// addr (version 1 or 2), following continuation blocks, until fn returns
// false.
func walkHeader(r io.ReaderAt, sb Superblock, addr uint64, fn func(typ int, data []byte) bool) error {
	pos, err := sb.abs(addr, 16)
	if err != nil {
		return err
	}
	var pre [16]byte
	if _, err := r.ReadAt(pre[:], pos); err != nil {
		return fmt.Errorf("%w: object header at %d: %v", ErrCorrupt, addr, err)
	}
	type block struct {
		pos, n int64
		v2     bool
	}
	var todo []block
	switch {
	case pre[0] == 1:
		n := int64(binary.LittleEndian.Uint32(pre[8:]))
		todo = append(todo, block{pos + 16, n, false})
	case string(pre[:4]) == "OHDR" && pre[4] == 2:
		flags := pre[5]
		at := int64(6)
		if flags&0x20 != 0 {
			at += 16 // access, modification, change, birth times
		}
		if flags&0x10 != 0 {
			at += 4 // attribute storage phase change
		}
		size := int64(1) << (flags & 3)
		b, err := readAt(r, sb, pos+at, size)
		if err != nil {
			return err
		}
		n, _ := uintN(append(b, make([]byte, 8)...), 8)
		// The chunk's messages, then its 4-byte checksum.
		todo = append(todo, block{pos + at + size, int64(min(n, uint64(sb.Size))) + 4, true})
	default:
		return fmt.Errorf("%w: no object header at %d", ErrCorrupt, addr)
	}
	v2crtOrder := pre[0] != 1 && pre[5]&0x04 != 0
	for blocks := 0; len(todo) > 0; blocks++ {
		if blocks > maxHeaderBlocks {
			return fmt.Errorf("%w: object header at %d: more than %d blocks", ErrCorrupt, addr, maxHeaderBlocks)
		}
		bl := todo[0]
		todo = todo[1:]
		if bl.n < 0 || bl.pos < 0 || bl.pos > sb.Size-bl.n {
			return fmt.Errorf("%w: object header block at %d of %d bytes", ErrCorrupt, bl.pos, bl.n)
		}
		b := make([]byte, bl.n)
		if _, err := r.ReadAt(b, bl.pos); err != nil {
			return fmt.Errorf("%w: object header block at %d: %v", ErrCorrupt, bl.pos, err)
		}
		more, cont, err := messages(b, bl.v2, v2crtOrder, fn)
		if err != nil || !more {
			return err
		}
		for _, c := range cont {
			if len(c) < sb.OffsetSize+sb.LengthSize {
				return fmt.Errorf("%w: continuation message of %d bytes", ErrCorrupt, len(c))
			}
			off, ok1 := uintN(c, sb.OffsetSize)
			n, ok2 := uintN(c[sb.OffsetSize:], sb.LengthSize)
			p, err := sb.abs(off, int64(min(n, uint64(sb.Size))))
			if !ok1 || !ok2 || err != nil {
				return fmt.Errorf("%w: continuation to %d (%d bytes)", ErrCorrupt, off, n)
			}
			if bl.v2 {
				// "OCHK", messages, checksum.
				todo = append(todo, block{p + 4, int64(n) - 4, true})
			} else {
				todo = append(todo, block{p, int64(n), false})
			}
		}
	}
	return nil
}

// messages calls fn for the messages of one header block and returns the
// continuation messages' data; more is false once fn has said stop.
func messages(b []byte, v2, crtOrder bool, fn func(int, []byte) bool) (more bool, cont [][]byte, err error) {
	if v2 {
		if len(b) < 4 {
			return false, nil, fmt.Errorf("%w: object header block of %d bytes", ErrCorrupt, len(b))
		}
		b = b[:len(b)-4] // the checksum
	}
	for {
		var typ, size, head int
		if v2 {
			head = 4
			if crtOrder {
				head = 6
			}
			if len(b) < head {
				return true, cont, nil // a gap too small for a message
			}
			typ, size = int(b[0]), int(binary.LittleEndian.Uint16(b[1:]))
		} else {
			head = 8
			if len(b) < head {
				return true, cont, nil
			}
			typ, size = int(binary.LittleEndian.Uint16(b)), int(binary.LittleEndian.Uint16(b[2:]))
		}
		if size > len(b)-head {
			return false, nil, fmt.Errorf("%w: header message of %d bytes in %d", ErrCorrupt, size, len(b)-head)
		}
		data := b[head : head+size]
		if typ == msgContinuation {
			cont = append(cont, data) // checked by the caller, who knows the field sizes
		} else if !fn(typ, data) {
			return false, nil, nil
		}
		b = b[head+size:]
	}
}

// readAt reads n bytes at an absolute position inside the file.
func readAt(r io.ReaderAt, sb Superblock, pos, n int64) ([]byte, error) {
	if pos < 0 || n < 0 || pos > sb.Size-n {
		return nil, fmt.Errorf("%w: %d bytes at %d outside the file", ErrCorrupt, n, pos)
	}
	b := make([]byte, n)
	if _, err := r.ReadAt(b, pos); err != nil {
		return nil, fmt.Errorf("%w: %d bytes at %d: %v", ErrCorrupt, n, pos, err)
	}
	return b, nil
}
