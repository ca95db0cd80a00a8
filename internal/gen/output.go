package gen

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// MaxValueSize is the largest value (LMDB) or row (HDF5) gen writes.
// liblmdb takes values up to 4 GiB - 1, but the writer holds each one about
// three times at once (the random bytes, their Datum encoding, liblmdb's
// dirty overflow pages until the commit) and a reader buffers whole
// values: 1 GiB keeps that within the memory of a small node, and is some
// ten thousand ImageNet images.
const MaxValueSize = 1 << 30

// addressSpace is the user address space of a Linux process on x86-64 and
// arm64 (47 bits; more only for mappings that ask for it, as liblmdb's do
// not).
const addressSpace = 1 << 47

// MapLimit is the largest LMDB map gen could ask for: the process's address
// space, or its limit (ulimit -v). liblmdb maps the whole data file, so no
// dataset larger than this can be written.
func MapLimit() int64 {
	limit := int64(addressSpace)
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &rl) == nil && rl.Cur < uint64(limit) {
		limit = int64(rl.Cur)
	}
	return limit
}

// mkdirAll is os.MkdirAll that also returns the topmost directory it
// created ("" if dir existed), so that a failed run can take away what it
// made and nothing else.
func mkdirAll(dir string) (created string, err error) {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		created = d
		if d == filepath.Dir(d) {
			break
		}
	}
	return created, os.MkdirAll(dir, 0o755)
}

// removeCreated removes files, then dir and its parents up to created,
// the directories mkdirAll made. Only empty directories go: whatever else
// appeared in them meanwhile stays.
func removeCreated(files []string, dir, created string) {
	for _, f := range files {
		os.Remove(f)
	}
	if created == "" {
		return
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if os.Remove(d) != nil || d == created || d == filepath.Dir(d) {
			return
		}
	}
}

// missing reports whether path does not exist (a broken symbolic link
// exists).
func missing(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}
