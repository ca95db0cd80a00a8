//go:build cgo

package h5lib

import (
	"fmt"
	"slices"

	"gonum.org/v1/hdf5"
)

// ReadRows reads rows [start, start+count) of the dataset name into dst
// through a hyperslab selection (H5Dread), in the file's own element type
// and byte order: no conversion. shape is the extent the caller expects;
// a dataset of another shape is an error, so dst (count rows of
// elemSize·shape[1]·… bytes) cannot be overrun.
func (f *File) ReadRows(name string, shape []int64, elemSize, start, count int64, dst []byte) error {
	return Do(func() error {
		ds, err := f.openDataset(name)
		if err != nil {
			return err
		}
		defer ds.Close()
		space, got, err := extent(ds)
		if err != nil {
			return err
		}
		dt, err := ds.Datatype()
		if err != nil {
			return libError("H5Dget_type")
		}
		size := int64(dt.Size())
		dt.Close()
		if space != Simple || !slices.Equal(got, shape) || size != elemSize {
			return fmt.Errorf("%s is now %v of %d-byte elements, not %v of %d-byte ones", name, got, size, shape, elemSize)
		}
		rowBytes := elemSize
		for _, d := range shape[1:] {
			rowBytes *= d
		}
		if start < 0 || count < 1 || start+count > shape[0] || int64(len(dst)) != count*rowBytes {
			return fmt.Errorf("rows [%d, %d) of %d into %d bytes", start, start+count, shape[0], len(dst))
		}
		return readRows(ds, shape, start, count, dst)
	})
}

func readRows(ds *hdf5.Dataset, shape []int64, start, count int64, dst []byte) error {
	offset := make([]uint, len(shape))
	counts := make([]uint, len(shape))
	offset[0], counts[0] = uint(start), uint(count)
	for i := 1; i < len(shape); i++ {
		counts[i] = uint(shape[i])
	}
	fspace := ds.Space()
	if fspace == nil {
		return libError("H5Dget_space")
	}
	defer fspace.Close()
	if err := fspace.SelectHyperslab(offset, nil, counts, nil); err != nil {
		return libError("H5Sselect_hyperslab")
	}
	mspace, err := hdf5.CreateSimpleDataspace(counts, nil)
	if err != nil {
		return libError("H5Screate_simple")
	}
	defer mspace.Close()
	if err := ds.ReadSubset(&dst, mspace, fspace); err != nil {
		return libError("H5Dread")
	}
	return nil
}
