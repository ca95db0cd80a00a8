//go:build linux

package shm

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// DirEnv names the variable that puts the segments on another shared-memory
// file system than /dev/shm (a larger tmpfs, where a container's /dev/shm
// is small).
const DirEnv = "LMDBIO_SHM_DIR"

// dir holds the segments; tests point it at a small tmpfs of their own.
var dir = cmp.Or(os.Getenv(DirEnv), "/dev/shm")

// Segment is one mapped shared-memory segment.
type Segment struct {
	name     string
	mem      []byte // the whole mapping, header included; nil after Close
	data     []byte // mem[HeaderSize:]
	info     Info
	unlinked bool
	file     *os.File // unnamed segments: the descriptor; closed by Close
	huge     bool     // on hugetlbfs, which refuses write(2)
}

// Create makes a new segment with size bytes of data, fails if the name
// exists, and maps it read-write. It checks free space first and reserves
// every page, so a full /dev/shm gives an error wrapping ErrNoSpace rather
// than a SIGBUS later. The data region is zeroed.
func Create(name string, size int64) (*Segment, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	if size < 0 || size > math.MaxInt-HeaderSize {
		return nil, fmt.Errorf("shm: create %s: invalid size %d", name, size)
	}
	total := HeaderSize + size
	if err := CheckFree(total); err != nil {
		return nil, fmt.Errorf("shm: create %s: %w", name, err)
	}
	path := filepath.Join(dir, name)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("shm: create %s: %w", path, err)
	}
	defer unix.Close(fd)
	mem, err := sizeAndMap(fd, total)
	if err != nil {
		_ = unix.Unlink(path)
		return nil, fmt.Errorf("shm: create %s: %w", path, err)
	}
	s := &Segment{name: name, mem: mem, data: mem[HeaderSize:total:total], info: Info{
		Job:          headerJob(name),
		CreatorPID:   os.Getpid(),
		CreatorStart: selfStart(),
		Size:         size,
		Created:      time.Now(),
	}}
	marshalHeader(mem, s.info)
	return s, nil
}

// sizeAndMap sets the file to total bytes, reserves its pages and maps it.
func sizeAndMap(fd int, total int64) ([]byte, error) {
	mem, _, err := sizeAndMapLazy(fd, total, total)
	return mem, err
}

// sizeAndMapLazy sets the file to total bytes, reserves its first
// reserved bytes and maps it. On hugetlbfs the file and the mapping are
// rounded up to whole huge pages (the mapping is longer than total), and
// mapping reserves them all; page is their size there, 0 elsewhere.
func sizeAndMapLazy(fd int, total, reserved int64) (mem []byte, page int64, err error) {
	if page, err = hugePageSize(fd); err != nil {
		return nil, 0, fmt.Errorf("fstatfs: %w", err)
	}
	total = roundUp(total, page)
	if err := unix.Ftruncate(fd, total); err != nil {
		return nil, 0, fmt.Errorf("ftruncate: %w", err)
	}
	if err := reserve(fd, 0, reserved); err != nil {
		return nil, 0, err
	}
	mem, err = unix.Mmap(fd, 0, int(total), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if page > 0 && errors.Is(err, unix.ENOMEM) {
		return nil, 0, &NoSpaceError{Need: total, Free: -1, Mount: mountName(page), Hint: NoSpaceHint}
	}
	if err != nil {
		return nil, 0, fmt.Errorf("mmap %d bytes: %w", total, err)
	}
	return mem, page, nil
}

// reserve allocates the pages of the file now. On a tmpfs, pages are
// otherwise allocated when first touched, and a shortage then kills the
// process with SIGBUS instead of returning an error.
func reserve(fd int, off, n int64) error {
	if n <= 0 {
		return nil
	}
	err := unix.Fallocate(fd, 0, off, n)
	// tmpfs and hugetlbfs give up on a pending signal, and the Go
	// runtime signals its threads often: what was reserved stays, so
	// asking again goes on from there.
	for errors.Is(err, unix.EINTR) {
		err = unix.Fallocate(fd, 0, off, n)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOSPC):
		return &NoSpaceError{Need: n, Free: -1, Mount: dir, Hint: NoSpaceHint}
	case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOSYS):
		return nil // kernels before 3.5 cannot reserve tmpfs pages: rely on CheckFree
	}
	return fmt.Errorf("fallocate %d bytes: %w", n, err)
}

// headerJob recovers the job id from a name made by Name, for the header.
func headerJob(name string) string {
	job, _, _, ok := parseName(name)
	if !ok {
		return ""
	}
	if len(job) > maxJob {
		job = job[:maxJob]
	}
	return job
}

// Open maps an existing segment read-write and validates its header.
// Errors wrap fs.ErrNotExist for a missing segment and ErrBadHeader for a
// file that is not an intact lmdbio segment.
func Open(name string) (*Segment, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("shm: open %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("shm: open %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("shm: open %s: %w: not a regular file", path, ErrBadHeader)
	}
	if st.Size < HeaderSize || st.Size > math.MaxInt {
		return nil, fmt.Errorf("shm: open %s: %w: file is %d bytes", path, ErrBadHeader, st.Size)
	}
	mem, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("shm: open %s: mmap: %w", path, err)
	}
	info, err := parseHeader(mem[:HeaderSize])
	if err == nil && info.Size > st.Size-HeaderSize {
		err = fmt.Errorf("%w: header says %d data bytes, file holds %d", ErrBadHeader, info.Size, st.Size-HeaderSize)
	}
	if err != nil {
		_ = unix.Munmap(mem)
		return nil, fmt.Errorf("shm: open %s: %w", path, err)
	}
	end := HeaderSize + info.Size
	return &Segment{name: name, mem: mem, data: mem[HeaderSize:end:end], info: info}, nil
}

// Bytes returns the data region: Info().Size bytes starting 4096-byte
// aligned. It is valid until Close and nil after it.
func (s *Segment) Bytes() []byte { return s.data }

// ReadAt copies data bytes [off, off+len(p)) into p. With a descriptor
// (CreateUnnamed, OpenFile) it reads them with pread(2): the kernel copies
// through its own mapping of the pages, so the caller's mapping is not
// touched (see docs/decisions/0003-first-touch.md). Without one it copies
// from the mapping. Bytes past the data region are an error.
func (s *Segment) ReadAt(p []byte, off int64) (int, error) {
	if err := s.within("read", len(p), off); err != nil {
		return 0, err
	}
	if s.file == nil {
		return copy(p, s.data[off:]), nil
	}
	return s.file.ReadAt(p, HeaderSize+off)
}

// WriteAt copies p into data bytes [off, off+len(p)), with pwrite(2) when
// the segment has a descriptor: as with ReadAt, the caller's mapping is
// not touched. Without one, and on huge pages (whose first touch is cheap,
// and which hugetlbfs cannot write), it copies into the mapping.
func (s *Segment) WriteAt(p []byte, off int64) (int, error) {
	if err := s.within("write", len(p), off); err != nil {
		return 0, err
	}
	if s.file == nil || s.huge {
		return copy(s.data[off:], p), nil
	}
	return s.file.WriteAt(p, HeaderSize+off)
}

// within checks that n bytes at off lie in the data region.
func (s *Segment) within(what string, n int, off int64) error {
	if off < 0 || off > int64(len(s.data)) || int64(n) > int64(len(s.data))-off {
		return fmt.Errorf("shm: %s of %d bytes at %d of a %d-byte segment", what, n, off, len(s.data))
	}
	return nil
}

// Name returns the segment's name (without the /dev/shm directory).
func (s *Segment) Name() string { return s.name }

// Info returns what the segment's header records.
func (s *Segment) Info() Info { return s.info }

// Unlink removes the segment's name so that no new process can open it and
// nothing is left behind when the job ends; existing mappings stay valid.
// Unlinking a name that is already gone (another local process unlinked
// it) is not an error.
func (s *Segment) Unlink() error {
	if s.unlinked {
		return nil
	}
	path := filepath.Join(dir, s.name)
	if err := unix.Unlink(path); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("shm: unlink %s: %w", path, err)
	}
	s.unlinked = true
	return nil
}

// Close unmaps the segment. Slices from Bytes must not be used afterwards.
// Closing twice is not an error. Close does not unlink.
func (s *Segment) Close() error {
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
	if s.mem == nil {
		return nil
	}
	mem := s.mem
	s.mem, s.data = nil, nil
	if err := unix.Munmap(mem); err != nil {
		return fmt.Errorf("shm: unmap %s: %w", s.name, err)
	}
	return nil
}
