// Package regular opens files that must be regular files: data files,
// saved indexes, resume states. Its errors carry no package prefix, so each
// caller words them as it wants.
package regular

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/lmdbio/lmdbio/pkg/failure"
	"golang.org/x/sys/unix"
)

// ErrNotRegular means a path names a directory, a FIFO, a device or a
// socket where a regular file is needed.
var ErrNotRegular = failure.New(failure.Input, "not a regular file")

// Open opens path for reading if it is a regular file, and returns it with
// what fstat says about it. The check is made on the file opened, not on
// the name, and the open does not block: a FIFO put in the file's place is
// refused instead of waiting for a writer forever. Errors are an
// *fs.PathError, or wrap ErrNotRegular.
func Open(path string) (*os.File, fs.FileInfo, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	st, err := f.Stat()
	if err == nil {
		err = Check(path, st.Mode())
	}
	if err == nil {
		// Reads of regular files never block anyway; clear the flag so
		// the file behaves as one from os.Open would.
		if e := unix.SetNonblock(fd, false); e != nil {
			err = &fs.PathError{Op: "fcntl", Path: path, Err: e}
		}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// Check returns nil if mode is a regular file's, else an error wrapping
// ErrNotRegular that says what path is instead.
func Check(path string, mode fs.FileMode) error {
	if mode.IsRegular() {
		return nil
	}
	var kind string
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
	default:
		return fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return fmt.Errorf("%s is %s: %w", path, kind, ErrNotRegular)
}
