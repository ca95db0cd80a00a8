package bench

import (
	"fmt"
	"time"

	"github.com/lmdbio/lmdbio/pkg/reader"
)

// LimitBuffer is the read size of the sequential limit: large enough that
// per-call costs vanish, as dd with bs=16M.
const LimitBuffer = 16 << 20

// LimitSample is one sequential read of a whole file.
type LimitSample struct {
	Direct  bool
	Bytes   int64
	Seconds float64
}

// MBPerS is the sample's throughput in decimal megabytes per second.
func (s LimitSample) MBPerS() float64 { return Rate(float64(s.Bytes), s.Seconds) / 1e6 }

// SequentialRead reads the file at path from start to end with buffers of
// bufSize bytes (rounded up to reader.Alignment), with O_DIRECT when direct
// is set, and times it: the physical limit a loader of that file can reach
// on this storage. A file system that refuses O_DIRECT gives an error
// wrapping reader.ErrDirectUnsupported.
func SequentialRead(path string, direct bool, bufSize int) (LimitSample, error) {
	if bufSize < 1 {
		panic("bench: SequentialRead with a buffer of less than one byte")
	}
	bufSize = (bufSize + reader.Alignment - 1) / reader.Alignment * reader.Alignment
	buf := reader.Aligned(bufSize)
	start := time.Now()
	r, err := reader.Open(path, direct)
	if err != nil {
		return LimitSample{}, fmt.Errorf("bench: sequential read: %w", err)
	}
	defer r.Close()
	var off int64
	for {
		n, err := r.ReadSpan(buf, off)
		if err != nil {
			return LimitSample{}, fmt.Errorf("bench: sequential read: %w", err)
		}
		off += int64(n)
		if n < len(buf) {
			break
		}
	}
	return LimitSample{Direct: direct, Bytes: off, Seconds: time.Since(start).Seconds()}, nil
}
