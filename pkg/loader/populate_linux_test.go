//go:build linux

package loader

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// uncachedFile writes a file of size zero bytes and drops it from the page
// cache; it returns its path, the file open for reading and a view of it.
// It skips the test where the file system keeps files in memory (tmpfs):
// nothing there is ever out of the page cache.
func uncachedFile(t *testing.T, size int) (string, *os.File, *fileView) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	v, err := openView(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	if in, _ := v.residentPages(0, int64(size)); in > 0 {
		t.Skip("the file system keeps the file in memory (tmpfs?): nothing is ever out of the page cache")
	}
	return path, f, v
}

// TestPopulate: populate brings a span that starts inside a page into the
// page cache.
func TestPopulate(t *testing.T) {
	const size = 1 << 20
	_, _, v := uncachedFile(t, size)
	if !populate(v.mem, 4096+100, size) {
		t.Fatal("populate failed")
	}
	if !v.resident(4096, size-4096) {
		t.Error("populate returned, but the span is not in the page cache")
	}
}

// TestReadIntoCache: readIntoCache brings a span that starts and ends
// inside pages into the page cache, through the file, and maps nothing.
func TestReadIntoCache(t *testing.T) {
	const size = 1 << 20
	_, f, v := uncachedFile(t, size)
	if !readIntoCache(f, 4096+100, size-100) {
		t.Fatal("readIntoCache failed")
	}
	if !v.resident(4096, size-4096) {
		t.Error("readIntoCache returned, but the span is not in the page cache")
	}
	if readIntoCache(f, size, size+4096) {
		t.Error("a span past the end of the file: readIntoCache says it read it")
	}
}

// TestShareCached: a node's share counts as cached when most of its pages
// are in the page cache, and only its own share counts.
func TestShareCached(t *testing.T) {
	const size = 1 << 20
	path, f, v := uncachedFile(t, size)
	if shareCached(path, 0, 1) {
		t.Error("nothing was read, but the file counts as cached")
	}
	if _, err := f.ReadAt(make([]byte, size/2), 0); err != nil { // node 0's half of 2
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), size/2, 0, unix.FADV_DONTNEED); err != nil { // what readahead took of node 1's
		t.Fatal(err)
	}
	if !shareCached(path, 0, 2) {
		t.Error("node 0 of 2: its half was read, but its share does not count as cached")
	}
	if shareCached(path, 1, 2) {
		t.Error("node 1 of 2: its half was not read, but its share counts as cached")
	}
	// Judged from 4 stretches of 2 pages: 3 of them lie in the first half.
	if !v.mostlyResident(0, 3*size/4, 4, 8192) {
		t.Error("the first three quarters, sampled: counted as not cached")
	}
	if v.mostlyResident(size/4, size, 4, 8192) {
		t.Error("the last three quarters, sampled: counted as cached")
	}
}
