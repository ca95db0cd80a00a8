package lmdbwalk

import (
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestFaultInMakesEveryPageResident: a mapped value evicted from the page
// cache is resident, every page of it, after FaultIn — also a value that
// starts and ends inside a page.
func TestFaultInMakesEveryPageResident(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data")
	const pages = 16
	if err := os.WriteFile(path, make([]byte, pages*pageSize), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil { // dirty pages cannot be dropped
		t.Fatal(err)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, pages*pageSize, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	if err := unix.Madvise(mem, unix.MADV_RANDOM); err != nil { // no readahead: only what is read comes in
		t.Fatal(err)
	}
	// Pages just written may sit in per-CPU batches that one DONTNEED
	// misses: ask again until none is resident.
	vec := make([]byte, pages)
	for try := 0; ; try++ {
		if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
			t.Fatal(err)
		}
		if residentPages(t, mem, vec) == 0 {
			break
		}
		if try == 20 {
			t.Skip("the page cache keeps the file: cannot tell what FaultIn brings in")
		}
		time.Sleep(10 * time.Millisecond)
	}
	FaultIn(nil)
	value := mem[pageSize+100 : 9*pageSize+5] // pages 1 to 9
	FaultIn(value)
	residentPages(t, mem, vec)
	for p := 1; p <= 9; p++ {
		if vec[p]&1 == 0 {
			t.Errorf("page %d of the value is not resident after FaultIn", p)
		}
	}
}

// residentPages fills vec with mincore's view of mem and counts the
// resident pages.
func residentPages(t *testing.T, mem, vec []byte) int {
	t.Helper()
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)),
		uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}
