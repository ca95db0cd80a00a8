// Package emu emulates a parallel file system (Lustre, GPFS) on one machine:
// it serves a local directory read-only through FUSE and gives every read
// the costs that decide how fast a data loader is on such a system.
//
// # Overview
//
// Mount serves a source directory at a mount point. Metadata operations are
// passed through (a loopback); file reads are served by the emulator, which
// applies, per READ request the kernel sends:
//
//   - a latency (the RPC round trip; Options.Latency), overlapping between
//     concurrent requests as it does for a client with many RPCs in flight;
//   - an aggregate bandwidth shared by every client of the mount, a token
//     Bucket over bytes served (Options.Bandwidth), first come first served:
//     with one mount per emulated host, the host's link;
//   - with Options.Servers, storage servers that the request queues at
//     (Servers): the file is striped over them (Layout), each piece of the
//     request waits behind the work its server has already accepted from
//     every client and then costs the server's latency and its bytes at the
//     server's bandwidth. The servers' queues live in a file every mount of
//     one emulated file system maps (Options.ServerState), so the clients of
//     all emulated hosts contend for the same servers;
//
// and to the mount as a whole:
//
//   - a largest request size (FUSE max_read and max_pages;
//     Options.MaxRequest): the kernel splits larger reads, as a Lustre client
//     splits reads into RPCs of at most its RPC size;
//   - a page-cache readahead (Options.Readahead), written to the mount's
//     /sys/class/bdi/<major:minor>/read_ahead_kb. It decides the request size
//     of mmap readers (page faults read around the faulting page) and of
//     buffered read(2)/pread(2).
//
// A request costs Latency plus the longer of its bandwidth wait and its time
// at the servers (the client's link and the servers work on it at once).
// The source's own read time is hidden inside the emulated cost rather than
// added to it, so the mount behaves like the slower of the two.
//
// The emulator does not read the bytes itself: it starts the kernel
// reading them when a request arrives, and the reply splices them from the
// source's page cache into the FUSE device (SpliceFits says when a pipe can
// hold a reply; others are copied through the process), so that the
// emulator takes as little CPU as it can from the job it serves on the same
// machine.
//
// Server.Stats counts the READ requests, the bytes, a histogram of request
// sizes, the opens, the time spent waiting for bandwidth and at the servers
// (queueing apart) and the request pieces per server, so a benchmark can
// compare what different readers ask of storage.
//
// # What readers see
//
//   - Buffered reads (no O_DIRECT) go through the kernel page cache: the data
//     stays cached after the first read (FOPEN_KEEP_CACHE) until the caches
//     are dropped (echo 1 > /proc/sys/vm/drop_caches). The kernel sends such
//     reads as readahead, so their requests are at most the readahead
//     (128 KiB by default) even for a large pread: FUSE does not let a large
//     buffered read exceed the readahead window.
//   - mmap readers (liblmdb) fault pages in with the same readahead.
//   - O_DIRECT opens work: reads bypass the page cache and reach the server
//     with the size the reader asked for, split at MaxRequest, several in
//     flight at once (FUSE async direct I/O). FUSE does not check alignment:
//     unaligned O_DIRECT reads succeed here, where Lustre and GPFS may refuse
//     them with EINVAL. The source file is opened without O_DIRECT.
//   - With Options.DirectIO every open behaves as if O_DIRECT had been given
//     and nothing is cached; read-only mmap still works on kernels that grant
//     FUSE_DIRECT_IO_ALLOW_MMAP (Linux 6.6 and later).
//   - Writes, creates and removals fail with EROFS.
//
// A process must not page-fault on a mount it serves itself: the faulting
// goroutine cannot be preempted, so a garbage collection would wait for it
// while it waits for the stopped server goroutines. Tests use a child process
// for mmap.
//
// # Invariants
//
//   - No READ request larger than MaxRequest reaches the emulator (the kernel
//     enforces it; Stats.Largest shows it).
//   - Over any interval, bytes served <= Bandwidth × interval + burst, where
//     the burst is 10 ms of bandwidth but at least one MaxRequest.
//   - Unmount leaves no mount behind: a busy mount is detached lazily; Mount
//     detaches a stale FUSE mount (server gone) at its mount point first and
//     refuses a live one.
//   - Counters only grow; the histogram's counts add up to Requests.
//   - A server never does more than its capacity: over any interval its
//     accepted work (Latency/Threads plus bytes/Bandwidth per piece) is at
//     most the interval plus what was queued at its start. Every mount of a
//     server state file agrees on the layout and costs (OpenServerState
//     refuses a mismatch).
package emu
