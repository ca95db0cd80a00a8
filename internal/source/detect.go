package source

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lmdbio/lmdbio/internal/h5fmt"
	"github.com/lmdbio/lmdbio/internal/lmdbfmt"
	"github.com/lmdbio/lmdbio/pkg/failure"
)

// Format is the file format of a dataset.
type Format string

const (
	LMDB Format = "lmdb"
	HDF5 Format = "hdf5"
)

// ErrUnknownFormat means a path holds neither an LMDB nor an HDF5 dataset.
var ErrUnknownFormat = failure.New(failure.Input, "neither an LMDB nor an HDF5 file")

const (
	lmdbDataFile = "data.mdb"
	// lmdbMagicAt is where MDB_meta's magic lies in the first meta page:
	// after the 16-byte page header.
	lmdbMagicAt = 16
	lmdbMagic   = 0xBEEFC0DE
)

// Detect says which format the dataset at path is in, by content, never by
// name: a directory holding data.mdb, or a file that starts with an LMDB
// meta page (its magic in either byte order) or has LMDB's magic in its
// second meta page, is LMDB; a file with HDF5's signature at offset 0, 512,
// 1024, 2048, ... is HDF5. Anything else is ErrUnknownFormat; a path that
// cannot be read gives the os error.
func Detect(path string) (Format, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, lmdbDataFile)); errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%w: a directory without %s", ErrUnknownFormat, lmdbDataFile)
		} else if err != nil {
			return "", err // a symbolic link loop, no permission: say that
		}
		return LMDB, nil
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%w: not a regular file", ErrUnknownFormat)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return detectFile(f, st.Size())
}

func detectFile(r io.ReaderAt, size int64) (Format, error) {
	var b [4]byte
	if _, err := r.ReadAt(b[:], lmdbMagicAt); err == nil {
		if m := binary.LittleEndian.Uint32(b[:]); m == lmdbMagic || m == 0xDEC0EFBE {
			return LMDB, nil
		}
	}
	if at, err := h5fmt.FindSuperblock(r, size); err != nil {
		return "", err
	} else if at >= 0 {
		return HDF5, nil
	}
	if size == 0 {
		return "", fmt.Errorf("%w: empty file", ErrUnknownFormat)
	}
	if lmdbfmt.Meta1Magic(r, size) {
		return LMDB, nil // page 0 damaged: the LMDB reader says so
	}
	return "", ErrUnknownFormat
}
