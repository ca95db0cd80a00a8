package lmdbfmt

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DataFileName is the data file inside an LMDB environment directory.
const DataFileName = "data.mdb"

// DataPath resolves what a user names as a dataset to the LMDB data file:
// a directory (an environment opened without MDB_NOSUBDIR) means its
// data.mdb; a regular file is itself. A missing path returns an error
// wrapping fs.ErrNotExist.
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
			return "", fmt.Errorf("lmdbfmt: %s is not a regular file", p)
		}
		return p, nil
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("lmdbfmt: %s is neither a directory nor a regular file", path)
	}
	return path, nil
}
