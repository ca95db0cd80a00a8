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
// pages, and the function that unmaps it. Fresh memory costs a page fault
// at its first touch: per 4 KiB page, 16–40 µs on a virtual machine that
// shadows page tables, where a job's first exchange of 21 MB per node
// took 0.5 s while its send and receive buffers were met and later ones
// 0.04 s. Without huge pages (THP off, or no mapping) it still works, a
// page at a time.
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
