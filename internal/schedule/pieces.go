package schedule

import "github.com/lmdbio/lmdbio/internal/source"

// Pieces lists the stored pieces of every block: block b's pieces are
// Ext[First[b]:First[b+1]]. With First nil, every block is one piece, piece
// b. It satisfies planner.Extents over piece numbers.
type Pieces struct {
	Ext   []source.Extent
	First []int32
}

// Of returns the range of block b's pieces.
func (p *Pieces) Of(b int32) (first, end int32) {
	if p.First == nil {
		return b, b + 1
	}
	return p.First[b], p.First[b+1]
}

// Extent is the file extent of piece i.
func (p *Pieces) Extent(i int) (off, n int64) { return p.Ext[i].Off, p.Ext[i].Len }

// Append adds the piece numbers of blocks to dst.
func (p *Pieces) Append(dst []int, blocks ...int32) []int {
	for _, b := range blocks {
		first, end := p.Of(b)
		for i := first; i < end; i++ {
			dst = append(dst, int(i))
		}
	}
	return dst
}
