package lmdbfmt

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
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
// it with what fstat says about it. The check is made on the file opened,
// not on the name, and the open does not block: a FIFO put in the file's
// place is refused instead of waiting for a writer forever.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("lmdbfmt: %w", &fs.PathError{Op: "open", Path: path, Err: err})
	}
	f := os.NewFile(uintptr(fd), path)
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = notRegular(path, st.Mode())
	}
	if err == nil {
		// Reads of regular files never block anyway; clear the flag so
		// the file behaves as one from os.Open would.
		err = unix.SetNonblock(fd, false)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// notRegular says what path is instead of a regular file.
func notRegular(path string, mode fs.FileMode) error {
	kind := "not a regular file"
	switch {
	case mode.IsDir():
		kind = "a directory"
	case mode&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case mode&fs.ModeCharDevice != 0:
		kind = "a character device"
	case mode&fs.ModeDevice != 0:
		kind = "a block device"
	case mode&fs.ModeSocket != 0:
		kind = "a socket"
	}
	return fmt.Errorf("lmdbfmt: %s is %s: %w", path, kind, ErrNotRegular)
}
