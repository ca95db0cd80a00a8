package h5fmt

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Chunk is one entry of a chunk B-tree.
type Chunk struct {
	// Offset is the chunk's first element along every dimension of the
	// dataset.
	Offset []uint64
	Pos    int64 // absolute position in the file
	Size   int64 // stored bytes
	// FilterMask has bit i set when filter i was skipped for this chunk.
	FilterMask uint32
}

const (
	maxBTreeDepth   = 64
	maxBTreeEntries = 1 << 16
)

// WalkChunks calls fn for every chunk the v1 B-tree at address btree
// indexes, in key order (row-major by chunk offset); dims are the chunk
// dimensions ChunkIndex returned. It stops after limit chunks with an
// error, and at the first error fn returns.
func WalkChunks(r io.ReaderAt, sb Superblock, btree uint64, dims []uint32, limit int, fn func(Chunk) error) error {
	if btree == NoBTree {
		return nil
	}
	w := &walker{r: r, sb: sb, rank: len(dims), limit: limit, fn: fn, seen: map[int64]bool{}}
	w.keySize = 8 + 8*w.rank
	return w.node(btree, -1, 0)
}

type walker struct {
	r       io.ReaderAt
	sb      Superblock
	rank    int // dimensions of a key's offset: the dataset's rank + 1
	keySize int
	limit   int
	count   int
	fn      func(Chunk) error
	seen    map[int64]bool
}

// node walks the node at addr, which its parent says is at level want
// (-1 for the root).
func (w *walker) node(addr uint64, want, depth int) error {
	if depth > maxBTreeDepth {
		return fmt.Errorf("%w: chunk B-tree deeper than %d", ErrCorrupt, maxBTreeDepth)
	}
	head := 8 + 2*int64(w.sb.OffsetSize)
	pos, err := w.sb.abs(addr, head)
	if err != nil {
		return err
	}
	if w.seen[pos] {
		return fmt.Errorf("%w: chunk B-tree node at %d reached twice", ErrCorrupt, addr)
	}
	w.seen[pos] = true
	h, err := readAt(w.r, w.sb, pos, head)
	if err != nil {
		return err
	}
	if string(h[:4]) != "TREE" || h[4] != 1 {
		return fmt.Errorf("%w: no chunk B-tree node at %d", ErrCorrupt, addr)
	}
	level, entries := int(h[5]), int(binary.LittleEndian.Uint16(h[6:]))
	if want >= 0 && level != want || entries == 0 && want >= 0 || entries > maxBTreeEntries {
		return fmt.Errorf("%w: chunk B-tree node at %d: level %d, %d entries", ErrCorrupt, addr, level, entries)
	}
	// Keys and children alternate: key, child, key, ..., child, key.
	body, err := readAt(w.r, w.sb, pos+head, int64(entries)*int64(w.keySize+w.sb.OffsetSize)+int64(w.keySize))
	if err != nil {
		return err
	}
	for i := range entries {
		key := body[i*(w.keySize+w.sb.OffsetSize):]
		child, ok := uintN(key[w.keySize:], w.sb.OffsetSize)
		if !ok {
			return fmt.Errorf("%w: chunk B-tree node at %d: child %d undefined", ErrCorrupt, addr, i)
		}
		if level > 0 {
			if err := w.node(child, level-1, depth+1); err != nil {
				return err
			}
			continue
		}
		if err := w.leaf(key, child); err != nil {
			return err
		}
	}
	return nil
}

// leaf reports the chunk a leaf key and its child address describe.
func (w *walker) leaf(key []byte, addr uint64) error {
	if w.count++; w.count > w.limit {
		return fmt.Errorf("%w: more than %d chunks", ErrCorrupt, w.limit)
	}
	size := int64(binary.LittleEndian.Uint32(key))
	pos, err := w.sb.abs(addr, size)
	if err != nil || size == 0 {
		return fmt.Errorf("%w: chunk at %d of %d bytes", ErrCorrupt, addr, size)
	}
	c := Chunk{Pos: pos, Size: size, FilterMask: binary.LittleEndian.Uint32(key[4:]),
		Offset: make([]uint64, w.rank-1)}
	for d := range c.Offset {
		c.Offset[d] = binary.LittleEndian.Uint64(key[8+8*d:])
	}
	return w.fn(c)
}
