package reader

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
)

// SpanReader reads spans of one data file with pread(2). ReadSpan and Stats
// are safe for concurrent use.
type SpanReader struct {
	f      *os.File
	fd     int
	path   string
	direct bool
	size   int64                                          // at Open; the data set does not change while it is read
	ioSize int64                                          // the file's preferred I/O size above Alignment, or 0
	pread  func(fd int, p []byte, off int64) (int, error) // syscall.Pread; tests inject short reads

	reads atomic.Int64
	bytes atomic.Int64
	spans atomic.Int64
}

// Stats counts the work a SpanReader has done.
type Stats struct {
	Reads int64 // pread(2) calls that returned data: the requests storage saw
	Bytes int64 // bytes read
	Spans int64 // ReadSpan calls
}

// Open opens path read-only for ReadSpan. With direct, the file is opened with
// O_DIRECT; a file system that refuses it (tmpfs, some FUSE and overlay
// mounts answer EINVAL) gives an error wrapping ErrDirectUnsupported, so the
// caller can retry without.
func Open(path string, direct bool) (*SpanReader, error) {
	flags := os.O_RDONLY | syscall.O_CLOEXEC
	if direct {
		if !directSupported {
			return nil, fmt.Errorf("reader: open %s: %w on this operating system", path, ErrDirectUnsupported)
		}
		flags |= oDirect
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		if direct && errors.Is(err, syscall.EINVAL) {
			return nil, fmt.Errorf("reader: open %s: %w (open with O_DIRECT: %v)", path, ErrDirectUnsupported, err)
		}
		return nil, fmt.Errorf("reader: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reader: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("reader: %s is not a regular file (%v)", path, fi.Mode().Type())
	}
	// Fd switches the file to blocking mode, which is what a regular file is
	// anyway; pread needs the raw descriptor so that each system call is ours
	// to count and retry.
	return &SpanReader{f: f, fd: int(f.Fd()), path: path, direct: direct, size: fi.Size(), ioSize: preferredIOSize(fi),
		pread: syscall.Pread}, nil
}

// maxIOSize bounds the preferred I/O size a file system may report that
// ReadSpan aligns to; parallel file systems report a few MiB (Lustre 2 or
// 4, GPFS its block size of up to 16).
const maxIOSize = 64 << 20

// preferredIOSize is the file's st_blksize when it is a power of two above
// Alignment and at most maxIOSize, else 0: local file systems report the
// page size, which direct reads already align to.
func preferredIOSize(fi os.FileInfo) int64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	b := int64(st.Blksize)
	if b <= Alignment || b > maxIOSize || b&(b-1) != 0 {
		return 0
	}
	return b
}

// Path returns the file's path.
func (r *SpanReader) Path() string { return r.path }

// Size returns the file's size at Open.
func (r *SpanReader) Size() int64 { return r.size }

// Direct reports whether the file was opened with O_DIRECT.
func (r *SpanReader) Direct() bool { return r.direct }

// ReadSpan reads len(dst) bytes at file offset off into dst. Short reads are
// continued and EINTR retried until dst is full or the file ends.
//
// When the span crosses a multiple of the file's preferred I/O size
// (st_blksize, which a parallel file system sets to its stripe or block
// size), the first pread ends there and the rest starts there. Clients such
// as FUSE and NFS cut a direct read into requests of their largest size from
// where the read starts: started on a stripe boundary, each request lies on
// one storage server, where a request straddling two costs a round trip at
// both.
//
// At the end of the file ReadSpan returns the bytes it could read, n <
// len(dst), and a nil error: with direct I/O the last span of a file is
// rounded up to Alignment and so usually reaches past the end, which is
// normal. The caller knows how many bytes its records need and must check n
// against that; a file that shrank shows up there.
//
// With direct I/O, dst's address and length and off must be multiples of
// Alignment (use Aligned, or an aligned region of the arena); otherwise
// ReadSpan reads nothing and returns an error wrapping ErrUnaligned.
func (r *SpanReader) ReadSpan(dst []byte, off int64) (n int, err error) {
	if off < 0 {
		return 0, fmt.Errorf("reader: %s: read at negative offset %d", r.path, off)
	}
	if r.direct && (!isAligned(dst) || len(dst)%Alignment != 0 || off%Alignment != 0) {
		return 0, fmt.Errorf("reader: %s: read of %d bytes at offset %d into buffer at %#x: %w",
			r.path, len(dst), off, addr(dst), ErrUnaligned)
	}
	r.spans.Add(1)
	first := r.firstRead(off, len(dst))
	for n < len(dst) {
		end := len(dst)
		if n < first {
			end = first
		}
		k, err := r.pread(r.fd, dst[n:end], off+int64(n))
		if err != nil {
			if err == syscall.EINTR {
				continue
			}
			if r.direct && err == syscall.EINVAL {
				return n, fmt.Errorf("reader: %s: pread of %d bytes at offset %d: %w (the file system refuses this direct read: %v)",
					r.path, len(dst)-n, off+int64(n), ErrDirectUnsupported, err)
			}
			return n, fmt.Errorf("reader: %s: pread of %d bytes at offset %d: %w", r.path, len(dst)-n, off+int64(n), err)
		}
		if k == 0 {
			break // end of file
		}
		r.reads.Add(1)
		r.bytes.Add(int64(k))
		n += k
		if r.direct && k%Alignment != 0 {
			// Direct reads come in whole blocks except the one where the
			// file ends; asking again would use an unaligned offset.
			break
		}
	}
	return n, nil
}

// firstRead is how many of the n bytes at off ReadSpan's first pread asks
// for: up to the next multiple of the preferred I/O size when the span
// crosses one, else all of them.
func (r *SpanReader) firstRead(off int64, n int) int {
	if r.ioSize == 0 {
		return n
	}
	next := (off + r.ioSize - 1) &^ (r.ioSize - 1)
	if next == off || next >= off+int64(n) {
		return n
	}
	return int(next - off)
}

// Stats returns the counters so far.
func (r *SpanReader) Stats() Stats {
	return Stats{Reads: r.reads.Load(), Bytes: r.bytes.Load(), Spans: r.spans.Load()}
}

// Close closes the file.
func (r *SpanReader) Close() error {
	if err := r.f.Close(); err != nil {
		return fmt.Errorf("reader: %w", err)
	}
	return nil
}
