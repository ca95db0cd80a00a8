package emu

import (
	"context"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// node is a loopback node whose files are opened read-only and read through
// the emulator. Lookups, attributes and directory listings are the loopback
// ones; everything that would change the source is refused by the kernel,
// because the mount is read-only.
type node struct {
	*fs.LoopbackNode
	emu *emulator
}

var (
	_ fs.NodeWrapChilder = (*node)(nil)
	_ fs.NodeOpener      = (*node)(nil)
	_ fs.NodeLookuper    = (*node)(nil)
	_ fs.NodeGetattrer   = (*node)(nil)
	_ fs.NodeStatxer     = (*node)(nil)
)

// WrapChild makes every node the loopback creates below this one a node too.
func (n *node) WrapChild(ctx context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	lb, ok := ops.(*fs.LoopbackNode)
	if !ok {
		return ops
	}
	return &node{LoopbackNode: lb, emu: n.emu}
}

// Lookup is the loopback's, with the emulated preferred I/O size.
func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	ch, errno := n.LoopbackNode.Lookup(ctx, name, out)
	n.emu.setBlksize(out.Mode, &out.Blksize)
	return ch, errno
}

// Getattr is the loopback's, with the emulated preferred I/O size.
func (n *node) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	errno := n.LoopbackNode.Getattr(ctx, f, out)
	n.emu.setBlksize(out.Mode, &out.Blksize)
	return errno
}

// Statx is the loopback's, with the emulated preferred I/O size.
func (n *node) Statx(ctx context.Context, f fs.FileHandle, flags, mask uint32, out *fuse.StatxOut) syscall.Errno {
	errno := n.LoopbackNode.Statx(ctx, f, flags, mask, out)
	n.emu.setBlksize(uint32(out.Mode), &out.Blksize)
	return errno
}

// Open opens the source file read-only. The client's O_DIRECT is not passed
// on: the kernel already sends such reads to us uncached and unmerged, which
// is the behaviour being emulated, and the source file system may refuse
// O_DIRECT or the alignment of our buffers.
func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if flags&syscall.O_ACCMODE != syscall.O_RDONLY {
		return nil, 0, syscall.EROFS
	}
	path := filepath.Join(n.RootData.Path, n.Path(nil))
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, fs.ToErrno(err)
	}
	n.emu.c.opens.Add(1)
	if flags&syscall.O_DIRECT != 0 {
		n.emu.c.directOpens.Add(1)
	}
	// KEEP_CACHE: the source does not change while it is served, so the
	// page cache may outlive an open, as it does on a real file system;
	// without it every open would throw away what the last one read.
	out := uint32(fuse.FOPEN_KEEP_CACHE)
	if n.emu.directIO {
		out = fuse.FOPEN_DIRECT_IO
	}
	f := &file{fd: fd, emu: n.emu}
	if n.emu.servers != nil {
		f.first = n.emu.servers.FirstServer(n.Path(nil))
	}
	return f, out, 0
}
