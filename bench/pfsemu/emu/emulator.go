package emu

import (
	"context"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"golang.org/x/sys/unix"
)

// emulator holds what every read request of one mount shares: the cost
// model and the counters.
type emulator struct {
	latency  time.Duration
	bucket   *Bucket  // nil: unlimited bandwidth
	servers  *Servers // nil: no server model
	directIO bool
	c        counters
	now      func() time.Time
}

// read serves one request for size bytes at off of a file whose first
// stripe is on server first, and returns how many bytes the reply holds
// (fewer at the end of the file) once the emulated cost has passed since
// the request arrived. The cost is the latency plus the longer of the wait
// for bandwidth and the time the servers take (queueing included): the
// client's link and the servers work on a request at the same time, the
// slower one decides.
//
// It does not copy the bytes. It asks the kernel to start reading them from
// the source at once, so the source's own read time is hidden inside the
// emulated cost instead of added to it (the mount is never faster than the
// emulated storage and only slower when the source itself is slower), and
// file.Read's reply splices them from the source's page cache into the FUSE
// device: one copy, by the kernel. Reading them into this process first
// took a second copy, and on a machine that emulates several hosts every
// cycle the emulator spends is taken from the job it serves, where real
// storage servers bring their own.
func (e *emulator) read(ctx context.Context, fd int, first int, size int, off int64) (int, syscall.Errno) {
	arrived := e.now()
	n, err := prefetch(fd, size, off)
	if err != nil {
		e.c.errors.Add(1)
		return 0, fs.ToErrno(err)
	}
	e.c.record(int64(size), int64(n))
	var wait time.Duration
	if e.bucket != nil {
		wait = e.bucket.Reserve(e.now(), int64(n))
		e.c.throttledNs.Add(int64(wait))
	}
	if e.servers != nil {
		served, queued := e.servers.Serve(first, off, int64(n), e.c.countServer)
		e.c.serverNs.Add(int64(served))
		e.c.queuedNs.Add(int64(queued))
		wait = max(wait, served)
	}
	cost := e.latency + wait
	if d := arrived.Add(cost).Sub(e.now()); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done(): // the kernel interrupted the request
			return 0, syscall.EINTR
		}
	}
	return n, 0
}

// prefetch returns how many of size bytes the file holds at off and
// starts the kernel reading them into its page cache (POSIX_FADV_WILLNEED
// returns once the reads are sent). Reading ahead is only a hint: where the
// source refuses it, the bytes are read when the reply is written.
func prefetch(fd int, size int, off int64) (int, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return 0, err
	}
	n := int(max(0, min(int64(size), st.Size-off)))
	if n > 0 {
		_ = unix.Fadvise(fd, off, int64(n), unix.FADV_WILLNEED)
	}
	return n, nil
}

// setBlksize reports the stripe size as a regular file's preferred I/O size
// (st_blksize) when servers are emulated, as a parallel file system's client
// reports a size its layout divides: Lustre's 2 or 4 MiB, a multiple of its
// usual 1 MiB stripe; GPFS its block size. A reader that starts its requests
// there has each one served by a single server.
func (e *emulator) setBlksize(mode uint32, blksize *uint32) {
	if e.servers != nil && mode&syscall.S_IFMT == syscall.S_IFREG {
		*blksize = uint32(min(e.servers.StripeSize, 1<<30))
	}
}
