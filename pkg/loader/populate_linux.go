//go:build linux

package loader

import (
	"os"

	"golang.org/x/sys/unix"
)

// populate brings bytes [off, end) of a read-only shared mapping into memory
// and into this process's page tables without copying them anywhere
// (madvise MADV_POPULATE_READ, Linux 5.14 and later, from off's page on);
// false if the kernel cannot, or on an error that a read will say better.
func populate(mapping []byte, off, end int64) bool {
	off &^= int64(os.Getpagesize() - 1)
	return end > off && unix.Madvise(mapping[off:end], unix.MADV_POPULATE_READ) == nil
}
