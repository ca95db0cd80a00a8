package lmdbfmt

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lmdbio/lmdbio/internal/regular"
)

// DataFileName is the data file inside an LMDB environment directory.
const DataFileName = "data.mdb"

// DataPath resolves what a user names as a dataset to the LMDB data file:
// a directory (an environment opened without MDB_NOSUBDIR) means its
// data.mdb; a regular file is itself. A missing path returns an error
// wrapping fs.ErrNotExist; anything else that is not a regular file (a
// FIFO, a device, a directory named data.mdb) one wrapping ErrNotRegular.
func DataPath(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("lmdbfmt: %w", err)
	}
	if st.IsDir() {
		p := filepath.Join(path, DataFileName)
		dst, err := os.Stat(p)
		if err != nil {
			if os.IsNotExist(err) {
				return "", fmt.Errorf("lmdbfmt: %s: no %s in directory: %w", path, DataFileName, fs.ErrNotExist)
			}
			return "", fmt.Errorf("lmdbfmt: %w", err)
		}
		if !dst.Mode().IsRegular() {
			return "", notRegular(p, dst.Mode())
		}
		return p, nil
	}
	if !st.Mode().IsRegular() {
		return "", notRegular(path, st.Mode())
	}
	return path, nil
}

// OpenRegular opens path for reading if it is a regular file, and returns
// it with what fstat says about it, without blocking on a FIFO: see
// regular.Open. Errors carry this package's prefix.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, st, err := regular.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("lmdbfmt: %w", err)
	}
	return f, st, nil
}

// notRegular says what path is instead of a regular file.
func notRegular(path string, mode fs.FileMode) error {
	return fmt.Errorf("lmdbfmt: %w", regular.Check(path, mode))
}
