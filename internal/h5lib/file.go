//go:build cgo

package h5lib

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"gonum.org/v1/hdf5"
)

// File is an HDF5 file open read-only. Its methods may be called from any
// goroutine; they run on the HDF5 goroutine, one at a time.
type File struct {
	path string
	f    *hdf5.File
}

// Open opens the HDF5 file at path read-only (H5Fopen).
func Open(path string) (*File, error) {
	// libhdf5 says "unable to open file" for every reason; os says which.
	if f, err := os.Open(path); err != nil {
		return nil, err
	} else {
		f.Close()
	}
	file := &File{path: path}
	err := Do(func() error {
		f, err := hdf5.OpenFile(path, hdf5.F_ACC_RDONLY)
		if err != nil {
			return libError("H5Fopen")
		}
		file.f = f
		return nil
	})
	if err != nil {
		return nil, err
	}
	return file, nil
}

// Close closes the file (H5Fclose).
func (f *File) Close() error {
	return Do(func() error {
		if f.f == nil {
			return nil
		}
		err := f.f.Close()
		f.f = nil
		return err
	})
}

// Path is the path the file was opened with.
func (f *File) Path() string { return f.path }

// walkLimits bound a walk through a file whose groups link in cycles or
// hold very many objects.
const (
	maxDepth    = 64
	maxDatasets = 1 << 20
)

// Datasets lists the absolute names of all datasets, walking every group
// from the root in name order.
func (f *File) Datasets() ([]string, error) {
	var names []string
	err := Do(func() error {
		return walk(&f.f.CommonFG, "/", 0, &names)
	})
	return names, err
}

// walk appends the datasets under group g, named prefix, to names.
// Objects that cannot be inspected (dangling links) are left out.
func walk(g *hdf5.CommonFG, prefix string, depth int, names *[]string) error {
	if depth > maxDepth {
		return fmt.Errorf("groups nest deeper than %d at %s", maxDepth, prefix)
	}
	n, err := g.NumObjects()
	if err != nil {
		return libError("H5Gget_info")
	}
	for i := range n {
		name, err := g.ObjectNameByIndex(i)
		if err != nil {
			continue
		}
		typ, err := g.ObjectTypeByIndex(i)
		if err != nil {
			continue
		}
		switch typ {
		case hdf5.H5G_DATASET:
			if len(*names) >= maxDatasets {
				return fmt.Errorf("more than %d datasets", maxDatasets)
			}
			*names = append(*names, prefix+name)
		case hdf5.H5G_GROUP:
			sub, err := g.OpenGroup(name)
			if err != nil {
				continue
			}
			err = walk(&sub.CommonFG, prefix+name+"/", depth+1, names)
			sub.Close()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// openDataset opens the dataset name (relative to the root), or says
// ErrNotFound when no such link exists. It runs on the HDF5 goroutine.
func (f *File) openDataset(name string) (*hdf5.Dataset, error) {
	if f.f == nil {
		return nil, errors.New("file is closed")
	}
	// H5Lexists fails on a path whose parent is missing: test every prefix.
	parts := strings.Split(strings.Trim(name, "/"), "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		if parts[i] == "" || !f.f.LinkExists(prefix) {
			return nil, fmt.Errorf("%w %q", ErrNotFound, "/"+strings.Trim(name, "/"))
		}
	}
	ds, err := f.f.OpenDataset(name)
	if err != nil {
		return nil, fmt.Errorf("%q is not a dataset: %w", name, libError("H5Dopen2"))
	}
	return ds, nil
}

// Dataset describes the dataset name.
func (f *File) Dataset(name string) (Dataset, error) {
	var d Dataset
	err := Do(func() error {
		ds, err := f.openDataset(name)
		if err != nil {
			return err
		}
		defer ds.Close()
		d, err = describe(ds)
		return err
	})
	return d, err
}

// describe reads everything Dataset holds from an open dataset.
func describe(ds *hdf5.Dataset) (Dataset, error) {
	d := Dataset{Name: ds.Name(), Offset: -1}
	var err error
	if d.Space, d.Shape, err = extent(ds); err != nil {
		return d, err
	}
	dt, err := ds.Datatype()
	if err != nil {
		return d, libError("H5Dget_type")
	}
	defer dt.Close()
	if d.Type, err = describeType(dt.ID()); err != nil {
		return d, err
	}
	if d.Layout, d.Chunk, d.Filters, d.External, err = creation(ds.ID()); err != nil {
		return d, err
	}
	if d.External > 0 {
		if d.ExternalFiles, err = externalFiles(ds.ID(), d.External); err != nil {
			return d, err
		}
	}
	if d.Layout == Contiguous {
		d.Offset = datasetOffset(ds.ID())
	}
	d.Stored = storageSize(ds.ID())
	if d.Layout == Chunked {
		if d.Allocated, err = numChunks(ds.ID()); err != nil {
			return d, err
		}
		if d.Index, err = chunkIndexType(ds.ID()); err != nil {
			return d, err
		}
	}
	return d, nil
}

// extent reads a dataset's dataspace class and current dimensions.
func extent(ds *hdf5.Dataset) (Space, []int64, error) {
	space := ds.Space()
	if space == nil {
		return 0, nil, libError("H5Dget_space")
	}
	defer space.Close()
	switch space.SimpleExtentType() {
	case hdf5.S_SCALAR:
		return Scalar, nil, nil
	case hdf5.S_NULL:
		return Null, nil, nil
	case hdf5.S_SIMPLE:
	default:
		return 0, nil, libError("H5Sget_simple_extent_type")
	}
	if space.SimpleExtentNDims() == 0 {
		return Simple, []int64{}, nil
	}
	dims, _, err := space.SimpleExtentDims()
	if err != nil {
		return 0, nil, libError("H5Sget_simple_extent_dims")
	}
	shape := make([]int64, len(dims))
	for i, d := range dims {
		shape[i] = int64(d)
	}
	return Simple, shape, nil
}
