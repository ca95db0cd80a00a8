//go:build linux

package loader

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// devNull is where readIntoCache sends what it reads; nil if it cannot be
// opened.
var devNull = sync.OnceValue(func() *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil
	}
	return f
})

// readIntoCache brings bytes [off, end) of f into the page cache without
// copying them anywhere or mapping them: sendfile to /dev/null, which
// splices the file's pages (read with the file's readahead, and waited for)
// into a sink that drops them. False if the kernel cannot (a file system
// without splice), or on an error that a read will say better.
func readIntoCache(f *os.File, off, end int64) bool {
	sink := devNull()
	if sink == nil {
		return false
	}
	for off < end {
		n, err := unix.Sendfile(int(sink.Fd()), int(f.Fd()), &off, int(min(end-off, 1<<30)))
		if err == unix.EINTR { // a signal before any byte moved: off is unchanged
			continue
		}
		if err != nil || n == 0 {
			return false
		}
	}
	return true
}

// populate brings bytes [off, end) of a read-only shared mapping into memory
// and into this process's page tables without copying them anywhere
// (madvise MADV_POPULATE_READ, Linux 5.14 and later, from off's page on);
// false if the kernel cannot, or on an error that a read will say better.
func populate(mapping []byte, off, end int64) bool {
	off &^= int64(os.Getpagesize() - 1)
	return end > off && unix.Madvise(mapping[off:end], unix.MADV_POPULATE_READ) == nil
}

// cachedPages counts the pages of f's bytes [off, end) that are in the page
// cache with cachestat (Linux 6.5 and later), which walks the page cache
// once, where mincore looks every page up on its own; false where the
// kernel cannot.
func cachedPages(f *os.File, off, end int64) (int, bool) {
	r := unix.CachestatRange{Off: uint64(off), Len: uint64(end - off)}
	var cs unix.Cachestat_t
	if unix.Cachestat(uint(f.Fd()), &r, &cs, 0) != nil {
		return 0, false
	}
	return int(cs.Cache), true
}
