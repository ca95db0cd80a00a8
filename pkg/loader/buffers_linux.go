package loader

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeAlign is the size of a transparent huge page on the architectures
// lmdbio runs on.
const hugeAlign = 2 << 20

// mapBuffers returns n bytes of fresh anonymous memory for buffers a node
// reader keeps for its whole run, asking the kernel for transparent huge
// pages, and the function that unmaps it: fresh memory costs a page fault
// per page at its first touch, which slowed a job's first exchange
// (docs/decisions/0009-exchange-memory-and-polling.md). Without huge pages
// (THP off, or no mapping) it still works, a page at a time.
func mapBuffers(n int) ([]byte, func()) {
	mem, err := unix.Mmap(-1, 0, n+hugeAlign, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]byte, n), func() {}
	}
	at := int(-uintptr(unsafe.Pointer(&mem[0])) & (hugeAlign - 1)) // to the first huge page boundary
	buf := mem[at : at+n : at+n]
	_ = unix.Madvise(buf, unix.MADV_HUGEPAGE) // a hint: refused, small pages serve
	return buf, func() { _ = unix.Munmap(mem) }
}
