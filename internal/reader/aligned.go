package reader

import "unsafe"

// Alignment is the unit direct I/O works in: buffer addresses, lengths and
// file offsets must be multiples of it. 4096 is the page size and the
// logical block size of current disks and parallel file systems, and a
// multiple of the 512 bytes of older disks.
const Alignment = 4096

// Aligned returns a zeroed buffer of n bytes whose address is a multiple of
// Alignment (len and cap are n). For direct reads, n should be a multiple of
// Alignment too. It over-allocates by less than Alignment bytes and slices,
// which keeps the buffer under the garbage collector's care.
func Aligned(n int) []byte {
	if n < 0 {
		panic("reader: Aligned with a negative size")
	}
	b := make([]byte, n+Alignment)
	skip := int((Alignment - addr(b)%Alignment) % Alignment)
	return b[skip : skip+n : skip+n]
}

// isAligned reports whether b's address is a multiple of Alignment.
func isAligned(b []byte) bool {
	return addr(b)%Alignment == 0
}

// addr is b's address, for error messages.
func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
