package source

import (
	"fmt"
	"io"
)

// Scan reads every record of src from r, the data file, the simple way:
// block by block, each block's pieces with ReadAt, decoded when src has a
// Decoder and checked when it is a Verifier. It calls fn for records 0,
// 1, ... in order; value is valid only during the call. Scan is the
// reference the loader's pipeline is tested against, and a quick check of
// a whole file.
func Scan(src Source, r io.ReaderAt, fn func(i int, value []byte) error) error {
	dec := src.Decoder()
	ver, _ := src.(Verifier)
	var (
		cur            = -1
		block, scratch []byte
		pieces         []Extent
		stored         [][]byte
	)
	for i := range src.Len() {
		b, off := src.BlockOf(i)
		if b != cur {
			n := src.DecodedLen(b)
			block = grow(block, n)
			pieces = src.Pieces(b, pieces[:0])
			var err error
			if scratch, stored, err = readPieces(r, pieces, dec == nil, block, scratch, stored[:0]); err != nil {
				return fmt.Errorf("block %d: %w", b, err)
			}
			if dec != nil {
				if err := dec.Decode(b, stored, block); err != nil {
					return err
				}
			}
			if ver != nil {
				if err := ver.Verify(b, block); err != nil {
					return err
				}
			}
			cur = b
		}
		n := src.ValueLen(i)
		if off < 0 || off+n > int64(len(block)) {
			return fmt.Errorf("record %d: [%d, %d) outside block %d of %d bytes", i, off, off+n, b, len(block))
		}
		if err := fn(i, block[off:off+n]); err != nil {
			return err
		}
	}
	return nil
}

// readPieces reads the pieces of a block: straight into block when the
// block is stored as is (one piece), else into scratch, returning the
// pieces' bytes.
func readPieces(r io.ReaderAt, pieces []Extent, asIs bool, block, scratch []byte, stored [][]byte) ([]byte, [][]byte, error) {
	if asIs {
		if len(pieces) != 1 || pieces[0].Len != int64(len(block)) {
			return scratch, stored, fmt.Errorf("%d pieces for a block stored as is", len(pieces))
		}
		_, err := r.ReadAt(block, pieces[0].Off)
		return scratch, stored, err
	}
	var total int64
	for _, p := range pieces {
		total += p.Len
	}
	scratch = grow(scratch, total)
	at := int64(0)
	for _, p := range pieces {
		buf := scratch[at : at+p.Len]
		if _, err := r.ReadAt(buf, p.Off); err != nil {
			return scratch, stored, err
		}
		stored = append(stored, buf)
		at += p.Len
	}
	return scratch, stored, nil
}

func grow(b []byte, n int64) []byte {
	if int64(cap(b)) < n {
		return make([]byte, n)
	}
	return b[:n]
}
