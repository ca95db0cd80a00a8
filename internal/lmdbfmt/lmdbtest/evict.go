package lmdbtest

import (
	"os"

	"golang.org/x/sys/unix"
)

// Evict drops the file at path from the page cache (posix_fadvise
// DONTNEED), so that the next read of it comes from storage: a cold read
// without dropping every cache of the machine (which needs root).
func Evict(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return err
	}
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
