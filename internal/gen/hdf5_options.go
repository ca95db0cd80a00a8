package gen

import "fmt"

// HDF5Options describe the HDF5 file WriteHDF5 creates.
type HDF5Options struct {
	Records int
	// Shape is the shape of one image, e.g. [3, 32, 32]; rows of the
	// "data" dataset are uint8 of this shape.
	Shape []int
	Seed  int64
	// ChunkRows stores "data" in chunks of that many whole rows; 0 means
	// contiguous, unless a filter asks for chunks (then about 1 MiB).
	ChunkRows int
	Gzip      int  // deflate level 1-9; 0 none
	Shuffle   bool // the shuffle filter, before deflate
	Overwrite bool
	// Progress, if set, is called after each batch of rows is written.
	Progress func(done, total int)
}

const (
	// hdf5BatchBytes is about how much one write hands libhdf5.
	hdf5BatchBytes = 16 << 20
	// maxHDF5Chunk is the largest chunk HDF5 stores.
	maxHDF5Chunk = 1<<32 - 1
)

// check validates o and fills in the chunk rows a filter needs.
func (o HDF5Options) check() (HDF5Options, error) {
	row := int64(1)
	for _, d := range o.Shape {
		if d < 1 {
			return o, fmt.Errorf("%w: image shape %v", ErrOptions, o.Shape)
		}
		// Saturated past MaxValueSize, so a huge shape cannot wrap around.
		row = min(row*int64(min(d, MaxValueSize+1)), MaxValueSize+1)
	}
	switch {
	case o.Records < 0:
		return o, fmt.Errorf("%w: %d records", ErrOptions, o.Records)
	case len(o.Shape) == 0 || len(o.Shape) > 31 || row > MaxValueSize:
		return o, fmt.Errorf("%w: image shape %v (rows of 1 to %d bytes)", ErrOptions, o.Shape, MaxValueSize)
	case o.ChunkRows < 0 || int64(o.ChunkRows) > maxHDF5Chunk/row:
		return o, fmt.Errorf("%w: chunks of %d rows of %d bytes (HDF5 chunks hold less than 4 GiB)", ErrOptions, o.ChunkRows, row)
	case o.Gzip < 0 || o.Gzip > 9:
		return o, fmt.Errorf("%w: gzip level %d, want 1-9 (0: none)", ErrOptions, o.Gzip)
	}
	if o.ChunkRows == 0 && (o.Gzip > 0 || o.Shuffle) {
		o.ChunkRows = int(max(1, (1<<20)/row))
	}
	return o, nil
}
