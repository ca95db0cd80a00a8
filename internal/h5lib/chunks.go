//go:build cgo

package h5lib

import (
	"fmt"
	"os"

	"github.com/lmdbio/lmdbio/internal/h5fmt"
)

// chunkQuery is what Chunks learns from libhdf5 before listing.
type chunkQuery struct {
	shape, chunk []int64
	index        ChunkIndex
	header       uint64 // object header address
	allocated    int64
	grid         []int64
	total        int64
}

// Chunks lists every chunk of the chunked dataset name in grid order
// (row-major over the grid of chunks), allocated or not, with absolute
// file offsets. A v1 B-tree index is walked in Go (package h5fmt) and
// checked against libhdf5; other indexes go through
// H5Dget_chunk_info_by_coord when they hold few chunks, and give
// ErrSlowIndex otherwise (see ListedFast).
func (f *File) Chunks(name string) ([]Chunk, error) {
	var q chunkQuery
	err := Do(func() error { return f.queryChunks(name, &q) })
	if err != nil {
		return nil, err
	}
	sb, file, err := f.superblock()
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if q.index == BTree1 {
		chunks, err := walkBTree(file, sb, &q)
		if err != nil {
			return nil, fmt.Errorf("%s: chunk index: %w", name, err)
		}
		if err := Do(func() error { return f.checkChunks(name, sb, &q, chunks) }); err != nil {
			return nil, err
		}
		return chunks, nil
	}
	if !ListedFast(q.index, q.allocated) {
		return nil, fmt.Errorf("%s: %w: %d chunks in a %s index", name, ErrSlowIndex, q.allocated, q.index)
	}
	var chunks []Chunk
	err = Do(func() error {
		ds, err := f.openDataset(name)
		if err != nil {
			return err
		}
		defer ds.Close()
		chunks, err = listChunks(ds.ID(), sb.Base, &q)
		return err
	})
	return chunks, err
}

// queryChunks reads the shape, chunk shape and index of dataset name. It
// runs on the HDF5 goroutine.
func (f *File) queryChunks(name string, q *chunkQuery) error {
	ds, err := f.openDataset(name)
	if err != nil {
		return err
	}
	defer ds.Close()
	if _, q.shape, err = extent(ds); err != nil {
		return err
	}
	layout, chunk, _, _, err := creation(ds.ID())
	if err != nil {
		return err
	}
	if layout != Chunked || len(chunk) != len(q.shape) || len(q.shape) == 0 {
		return fmt.Errorf("%s: not a chunked dataset", name)
	}
	q.chunk = chunk
	q.grid = make([]int64, len(q.shape))
	q.total = 1
	for i := range q.shape {
		if chunk[i] < 1 {
			return fmt.Errorf("%s: chunk dimension %d is %d", name, i, chunk[i])
		}
		q.grid[i] = (q.shape[i] + chunk[i] - 1) / chunk[i]
		if q.grid[i] > 0 && q.total > MaxChunks/q.grid[i] {
			return fmt.Errorf("%s: more than %d chunks", name, MaxChunks)
		}
		q.total *= q.grid[i]
	}
	if q.index, err = chunkIndexType(ds.ID()); err != nil {
		return err
	}
	if q.allocated, err = numChunks(ds.ID()); err != nil {
		return err
	}
	q.header, err = objectAddr(ds.ID())
	return err
}

// superblock opens the file for reading in Go and reads its superblock.
func (f *File) superblock() (h5fmt.Superblock, *os.File, error) {
	file, err := os.Open(f.path)
	if err != nil {
		return h5fmt.Superblock{}, nil, err
	}
	st, err := file.Stat()
	if err == nil {
		var at int64
		if at, err = h5fmt.FindSuperblock(file, st.Size()); err == nil && at < 0 {
			err = fmt.Errorf("%w: no superblock", h5fmt.ErrCorrupt)
		}
		if err == nil {
			var sb h5fmt.Superblock
			if sb, err = h5fmt.ReadSuperblock(file, at, st.Size()); err == nil {
				return sb, file, nil
			}
		}
	}
	file.Close()
	return h5fmt.Superblock{}, nil, err
}

// walkBTree lists the chunks of a v1 B-tree index in grid order.
func walkBTree(file *os.File, sb h5fmt.Superblock, q *chunkQuery) ([]Chunk, error) {
	btree, dims, err := h5fmt.ChunkIndex(file, sb, q.header)
	if err != nil {
		return nil, err
	}
	if len(dims) != len(q.chunk)+1 {
		return nil, fmt.Errorf("%w: %d chunk dimensions for rank %d", h5fmt.ErrCorrupt, len(dims), len(q.chunk))
	}
	for i, c := range q.chunk {
		if int64(dims[i]) != c {
			return nil, fmt.Errorf("%w: chunk shape %v, libhdf5 says %v", h5fmt.ErrCorrupt, dims, q.chunk)
		}
	}
	chunks := emptyGrid(q)
	err = h5fmt.WalkChunks(file, sb, btree, dims, int(q.total), func(c h5fmt.Chunk) error {
		cell, coord, ok := q.cell(c.Offset)
		if !ok || chunks[cell].Offset >= 0 {
			return fmt.Errorf("%w: chunk at offset %v", h5fmt.ErrCorrupt, c.Offset)
		}
		chunks[cell] = Chunk{Coord: coord, Offset: c.Pos, Size: c.Size, FilterMask: c.FilterMask}
		return nil
	})
	return chunks, err
}

// emptyGrid returns the grid's chunks in row-major order, none allocated.
func emptyGrid(q *chunkQuery) []Chunk {
	chunks := make([]Chunk, q.total)
	rank := len(q.grid)
	coords := make([]int64, int(q.total)*rank)
	for i := range chunks {
		c := coords[i*rank : (i+1)*rank : (i+1)*rank]
		rest := int64(i)
		for d := rank - 1; d >= 0; d-- {
			c[d] = rest % q.grid[d]
			rest /= q.grid[d]
		}
		chunks[i] = Chunk{Coord: c, Offset: -1}
	}
	return chunks
}

// cell returns the grid cell of the chunk that starts at element offset,
// and whether that is a chunk's start inside the grid.
func (q *chunkQuery) cell(offset []uint64) (int64, []int64, bool) {
	if len(offset) != len(q.grid) {
		return 0, nil, false
	}
	var cell int64
	coord := make([]int64, len(q.grid))
	for d, o := range offset {
		c := int64(o / uint64(q.chunk[d]))
		if o%uint64(q.chunk[d]) != 0 || c >= q.grid[d] {
			return 0, nil, false
		}
		coord[d] = c
		cell = cell*q.grid[d] + c
	}
	return cell, coord, true
}

// checkChunks compares a listing with libhdf5: the number of chunks, and
// the first and last of them. It runs on the HDF5 goroutine.
func (f *File) checkChunks(name string, sb h5fmt.Superblock, q *chunkQuery, chunks []Chunk) error {
	var listed []Chunk
	for _, c := range chunks {
		if c.Offset >= 0 {
			listed = append(listed, c)
		}
	}
	if int64(len(listed)) != q.allocated {
		return fmt.Errorf("%s: %w: the chunk index lists %d chunks, libhdf5 counts %d", name, h5fmt.ErrCorrupt, len(listed), q.allocated)
	}
	if len(listed) == 0 {
		return nil
	}
	ds, err := f.openDataset(name)
	if err != nil {
		return err
	}
	defer ds.Close()
	for _, c := range []Chunk{listed[0], listed[len(listed)-1]} {
		start := make([]uint64, len(c.Coord))
		for d := range start {
			start[d] = uint64(c.Coord[d] * q.chunk[d])
		}
		off, size, mask, err := chunkAt(ds.ID(), start)
		if err != nil {
			return err
		}
		if off+sb.Base != c.Offset || size != c.Size || mask != c.FilterMask {
			return fmt.Errorf("%s: %w: chunk %v at %d (%d bytes), libhdf5 says %d (%d bytes)",
				name, h5fmt.ErrCorrupt, c.Coord, c.Offset, c.Size, off+sb.Base, size)
		}
	}
	return nil
}

// listChunks asks libhdf5 for every chunk of the grid by its coordinates.
// It runs on the HDF5 goroutine.
func listChunks(dset int64, base int64, q *chunkQuery) ([]Chunk, error) {
	chunks := emptyGrid(q)
	start := make([]uint64, len(q.grid))
	for i := range chunks {
		for d, c := range chunks[i].Coord {
			start[d] = uint64(c * q.chunk[d])
		}
		off, size, mask, err := chunkAt(dset, start)
		if err != nil {
			return nil, err
		}
		if off >= 0 {
			chunks[i].Offset, chunks[i].Size, chunks[i].FilterMask = off+base, size, mask
		}
	}
	return chunks, nil
}
