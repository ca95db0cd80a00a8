//go:build linux

package shm

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// CreateUnnamed makes a segment of size data bytes that never has a name:
// a file on the shared-memory file system opened with O_TMPFILE. It counts
// against that file system's space like a named segment (checked and
// reserved the same way), it is handed to other processes as a descriptor
// (File, passed over a Unix socket), and it disappears when the last
// descriptor and mapping are gone, however the processes end: nothing can
// be left behind. Where O_TMPFILE is refused (old kernels, other file
// systems) the segment is created under a unique name and unlinked at once.
// With lazy, only the header's pages are reserved now: the caller reserves
// each region with Reserve before it writes it, which spreads the cost of
// allocating a large segment over its filling.
func CreateUnnamed(job string, size int64, lazy bool) (*Segment, error) {
	if size < 0 || size > math.MaxInt-HeaderSize {
		return nil, fmt.Errorf("shm: create: invalid size %d", size)
	}
	total := HeaderSize + size
	if err := CheckFree(total); err != nil {
		return nil, fmt.Errorf("shm: create: %w", err)
	}
	fd, err := openTmpfile()
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "shared-memory segment")
	reserved := total
	if lazy {
		reserved = HeaderSize
	}
	mem, page, err := sizeAndMapLazy(fd, total, reserved)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("shm: create: %w", err)
	}
	s := &Segment{mem: mem, data: mem[HeaderSize:total:total], file: f, unlinked: true, huge: page > 0, info: Info{
		Job:          cleanJob(job),
		CreatorPID:   os.Getpid(),
		CreatorStart: selfStart(),
		Size:         size,
		Created:      time.Now(),
	}}
	if len(s.info.Job) > maxJob {
		s.info.Job = s.info.Job[:maxJob]
	}
	marshalHeader(mem, s.info)
	return s, nil
}

// openTmpfile opens an unnamed file in dir.
func openTmpfile() (int, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return fd, nil
	}
	if !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EINVAL) {
		return -1, fmt.Errorf("shm: create in %s: %w", dir, err)
	}
	path := filepath.Join(dir, Name("", "tmp"+fmt.Sprint(time.Now().UnixNano())))
	fd, err = unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return -1, fmt.Errorf("shm: create %s: %w", path, err)
	}
	if err := unix.Unlink(path); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("shm: unlink %s: %w", path, err)
	}
	return fd, nil
}

// OpenFile maps a segment from a descriptor another process passed, read
// only (learners never write shared memory), and validates its header. The
// Segment takes f over: Close closes it.
func OpenFile(f *os.File) (*Segment, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("shm: open segment: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size < HeaderSize || st.Size > math.MaxInt {
		f.Close()
		return nil, fmt.Errorf("shm: open segment: %w: a file of %d bytes, mode %o", ErrBadHeader, st.Size, st.Mode)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("shm: open segment: mmap: %w", err)
	}
	info, err := parseHeader(mem[:HeaderSize])
	if err == nil && info.Size > st.Size-HeaderSize {
		err = fmt.Errorf("%w: header says %d data bytes, file holds %d", ErrBadHeader, info.Size, st.Size-HeaderSize)
	}
	if err != nil {
		_ = unix.Munmap(mem)
		f.Close()
		return nil, fmt.Errorf("shm: open segment: %w", err)
	}
	end := HeaderSize + info.Size
	return &Segment{mem: mem, data: mem[HeaderSize:end:end], file: f, info: info, unlinked: true}, nil
}

// File returns the descriptor of a segment made by CreateUnnamed or opened
// by OpenFile, for passing to another process; nil for named segments.
func (s *Segment) File() *os.File { return s.file }

// Reserve allocates the pages of data bytes [off, off+n) now, so that a
// shortage of shared memory is an error (wrapping ErrNoSpace) rather than a
// SIGBUS when they are first written. Reserving reserved pages again costs
// little.
func (s *Segment) Reserve(off, n int64) error {
	if s.file == nil {
		return nil // named segments are reserved whole at Create
	}
	if err := reserve(int(s.file.Fd()), HeaderSize+off, n); err != nil {
		return fmt.Errorf("shm: reserve %d bytes: %w", n, err)
	}
	return nil
}
