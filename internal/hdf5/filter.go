package hdf5

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zlib"
)

// HDF5's deflate filter writes zlib streams (RFC 1950), inflated here with
// github.com/klauspost/compress (docs/decisions/0004-inflate.md).

// inflaters reuses zlib readers and their windows across chunks.
var inflaters sync.Pool

// inflate decompresses the zlib stream src, which must hold exactly size
// bytes: the first len(dst) go to dst (len(dst) <= size), the rest are
// checked and dropped (rows of an edge chunk past the dataset's end).
func inflate(dst, src []byte, size int64) error {
	br := bytes.NewReader(src)
	var zr io.ReadCloser
	if v := inflaters.Get(); v != nil {
		zr = v.(io.ReadCloser)
		if err := zr.(zlib.Resetter).Reset(br, nil); err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
	} else {
		var err error
		if zr, err = zlib.NewReader(br); err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
	}
	defer inflaters.Put(zr)
	if _, err := io.ReadFull(zr, dst); err != nil {
		return fmt.Errorf("deflate: %w", shortStream(err))
	}
	if rest := size - int64(len(dst)); rest > 0 {
		if _, err := io.CopyN(io.Discard, zr, rest); err != nil {
			return fmt.Errorf("deflate: %w", shortStream(err))
		}
	}
	// The stream must end here; reading its end checks the Adler-32 sum.
	var one [1]byte
	if n, err := zr.Read(one[:]); n > 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			return fmt.Errorf("deflate: more than the chunk's %d bytes", size)
		}
		return fmt.Errorf("deflate: %w", err)
	}
	return nil
}

func shortStream(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the stream ends before the chunk does")
	}
	return err
}

// unshuffle undoes HDF5's shuffle filter, which stores byte 0 of every
// element, then byte 1 of every element, and so on, followed by the bytes
// that do not fill an element, as they were. It writes the first len(dst)
// bytes of the unshuffled data (len(dst) <= len(src)).
func unshuffle(dst, src []byte, size int) {
	n := len(src) / size // elements
	if size <= 1 || n <= 1 {
		copy(dst, src)
		return
	}
	whole := min(len(dst)/size, n)
	for j := range size {
		plane := src[j*n : j*n+whole]
		for i, b := range plane {
			dst[i*size+j] = b
		}
	}
	// A partial element at dst's end, then the bytes after the elements.
	for k := whole * size; k < min(len(dst), n*size); k++ {
		dst[k] = src[(k%size)*n+k/size]
	}
	if len(dst) > n*size {
		copy(dst[n*size:], src[n*size:])
	}
}
