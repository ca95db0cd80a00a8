package emu

import (
	"context"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
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

// read serves one request for a file whose first stripe is on server
// first: it reads the bytes from the source at once and then holds the reply
// until the emulated cost has passed since the request arrived. The cost is
// the latency plus the longer of the wait for bandwidth and the time the
// servers take (queueing included): the client's link and the servers work
// on a request at the same time, the slower one decides. The source's own
// read time is hidden inside the emulated cost instead of added to it, so
// the mount is never faster than the emulated storage and only slower when
// the source itself is slower.
func (e *emulator) read(ctx context.Context, fd int, first int, dest []byte, off int64) (int, syscall.Errno) {
	arrived := e.now()
	n, err := pread(fd, dest, off)
	if err != nil {
		e.c.errors.Add(1)
		return 0, fs.ToErrno(err)
	}
	e.c.record(int64(len(dest)), int64(n))
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

// pread fills as much of p as the file holds at off, retrying EINTR and
// continuing short reads; it returns fewer bytes only at the end of the file.
func pread(fd int, p []byte, off int64) (int, error) {
	done := 0
	for done < len(p) {
		n, err := syscall.Pread(fd, p[done:], off+int64(done))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			break
		}
		done += n
	}
	return done, nil
}
