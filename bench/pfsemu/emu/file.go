package emu

import (
	"context"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// file is an open source file. It deliberately does not implement
// fs.FilePassthroughFder: with kernel passthrough, reads would bypass the
// emulator.
type file struct {
	emu   *emulator
	first int // the server of the file's first stripe

	mu sync.Mutex // guards fd against Release racing a late Getattr
	fd int        // -1 after Release
}

var (
	_ fs.FileReader    = (*file)(nil)
	_ fs.FileReleaser  = (*file)(nil)
	_ fs.FileGetattrer = (*file)(nil)
)

// Read serves one READ request through the emulator.
func (f *file) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	f.mu.Lock()
	fd := f.fd
	f.mu.Unlock()
	if fd < 0 {
		return nil, syscall.EBADF
	}
	n, errno := f.emu.read(ctx, fd, f.first, len(dest), off)
	if errno != 0 {
		return nil, errno
	}
	// go-fuse splices the bytes from the source when it writes the reply,
	// or reads them where it cannot (see SpliceFits).
	return fuse.ReadResultFd(uintptr(fd), off, n), 0
}

// Release closes the source file when the kernel drops its last reference.
func (f *file) Release(ctx context.Context) syscall.Errno {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fd < 0 {
		return syscall.EBADF
	}
	err := syscall.Close(f.fd)
	f.fd = -1
	return fs.ToErrno(err)
}

// Getattr answers fstat from the open file.
func (f *file) Getattr(ctx context.Context, out *fuse.AttrOut) syscall.Errno {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fd < 0 {
		return syscall.EBADF
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(f.fd, &st); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStat(&st)
	f.emu.setBlksize(out.Mode, &out.Blksize)
	return 0
}
