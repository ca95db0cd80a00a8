package hdf5

import (
	"errors"

	"github.com/lmdbio/lmdbio/internal/h5lib"
)

// DatasetInfo describes one dataset of a file and how lmdbio would read it.
type DatasetInfo struct {
	h5lib.Dataset
	// Logical is the bytes of all elements; Dataset.Stored the bytes they
	// take in the file.
	Logical int64
	// Read is how lmdbio reads the rows, 0 when it cannot; Why says why it
	// cannot, or why it reads through libhdf5.
	Read Read
	Why  string
}

// Inspect describes every dataset of the HDF5 file at path, walking its
// groups, without reading any data.
func Inspect(path string) ([]DatasetInfo, error) {
	f, _, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Datasets()
	if err != nil {
		return nil, badf("listing the datasets: %v", err)
	}
	infos := make([]DatasetInfo, 0, len(names))
	for _, name := range names {
		d, err := f.Dataset(name)
		if err != nil {
			return nil, badf("dataset %s: %v", name, err)
		}
		info := DatasetInfo{Dataset: d}
		if d.Space == h5lib.Simple {
			info.Logical = d.Type.Size * product(d.Shape)
		} else if d.Space == h5lib.Scalar {
			info.Logical = d.Type.Size
		}
		info.Read, info.Why, err = plan(d)
		if err != nil {
			var bad badInput
			errors.As(err, &bad)
			info.Read, info.Why = 0, bad.Error()
		}
		infos = append(infos, info)
	}
	return infos, nil
}
