package loader

import (
	"testing"
	"unsafe"
)

// TestMapBuffers: the buffers are n writable bytes starting on a huge page
// boundary, so that the kernel can back them with huge pages from the
// first byte on.
func TestMapBuffers(t *testing.T) {
	for _, n := range []int{2, 3 << 20, 24 << 20} {
		buf, free := mapBuffers(n)
		if len(buf) != n || cap(buf) != n {
			t.Fatalf("mapBuffers(%d): %d bytes, capacity %d", n, len(buf), cap(buf))
		}
		if at := uintptr(unsafe.Pointer(&buf[0])); at%hugeAlign != 0 {
			t.Errorf("mapBuffers(%d) starts at %#x, not on a %d-byte boundary", n, at, hugeAlign)
		}
		buf[0], buf[n-1] = 1, 2
		if buf[0] != 1 || buf[n-1] != 2 {
			t.Errorf("mapBuffers(%d): writes did not stay", n)
		}
		free()
	}
}
