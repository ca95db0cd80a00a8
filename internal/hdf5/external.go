package hdf5

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/lmdbio/lmdbio/internal/h5lib"
)

// checkExternal says which file of a dataset's external storage cannot be
// opened, naming it: libhdf5 alone says only that a read failed, once the
// job has started.
func checkExternal(d h5lib.Dataset, path string) error {
	for _, name := range d.ExternalFiles {
		p := externalPath(name, path)
		f, err := os.Open(p)
		if err != nil {
			if abs, aerr := filepath.Abs(p); aerr == nil {
				p = abs // where it was looked for, whatever the working directory
			}
			return badf("dataset %s: its rows lie in the external file %s, which cannot be opened: %v",
				d.Name, p, unwrapPath(err))
		}
		f.Close()
	}
	return nil
}

// externalPath is where libhdf5 (1.10 and later) looks for an external file
// the dataset names: an absolute name as is; a relative one under the
// prefix HDF5_EXTFILE_PREFIX sets, whose "${ORIGIN}" stands for the
// directory of the HDF5 file, else relative to the working directory.
func externalPath(name, h5Path string) string {
	prefix := os.Getenv("HDF5_EXTFILE_PREFIX")
	if filepath.IsAbs(name) || prefix == "" {
		return name
	}
	prefix = strings.ReplaceAll(prefix, "${ORIGIN}", filepath.Dir(h5Path))
	return filepath.Join(prefix, name)
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
