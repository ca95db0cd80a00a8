package h5lib

import "fmt"

// Chunks lists every chunk of the chunked dataset name in chunk index
// order (row-major over the grid of chunks), allocated or not. It asks
// for each chunk by its coordinates (H5Dget_chunk_info_by_coord): a lookup
// in the chunk index, where H5Dget_chunk_info by number would walk the
// index from its start every time.
func (f *File) Chunks(name string) ([]Chunk, error) {
	var chunks []Chunk
	err := Do(func() error {
		ds, err := f.openDataset(name)
		if err != nil {
			return err
		}
		defer ds.Close()
		_, shape, err := extent(ds)
		if err != nil {
			return err
		}
		layout, chunk, _, _, err := creation(ds.ID())
		if err != nil {
			return err
		}
		if layout != Chunked || len(chunk) != len(shape) || len(shape) == 0 {
			return fmt.Errorf("%s: not a chunked dataset", name)
		}
		chunks, err = listChunks(ds.ID(), shape, chunk)
		return err
	})
	return chunks, err
}

func listChunks(dset int64, shape, chunk []int64) ([]Chunk, error) {
	grid := make([]int64, len(shape))
	total := int64(1)
	for i := range shape {
		if chunk[i] < 1 {
			return nil, fmt.Errorf("chunk dimension %d is %d", i, chunk[i])
		}
		grid[i] = (shape[i] + chunk[i] - 1) / chunk[i]
		total *= grid[i]
	}
	if total == 0 {
		return nil, nil
	}
	chunks := make([]Chunk, 0, total)
	coord := make([]int64, len(shape))
	start := make([]uint64, len(shape))
	for {
		for i := range coord {
			start[i] = uint64(coord[i] * chunk[i])
		}
		off, size, mask, err := chunkAt(dset, start)
		if err != nil {
			return nil, err
		}
		chunks = append(chunks, Chunk{Coord: append([]int64(nil), coord...), Offset: off, Size: size, FilterMask: mask})
		// Next coordinate, the last dimension fastest.
		i := len(coord) - 1
		for ; i >= 0; i-- {
			if coord[i]++; coord[i] < grid[i] {
				break
			}
			coord[i] = 0
		}
		if i < 0 {
			return chunks, nil
		}
	}
}
