//go:build !linux

package loader

// mapBuffers returns n bytes for buffers a node reader keeps for its whole
// run: from the Go heap, where there is no mapping to ask huge pages of.
func mapBuffers(n int) ([]byte, func()) { return make([]byte, n), func() {} }
