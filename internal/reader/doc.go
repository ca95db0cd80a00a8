// Package reader is the storage side of a node leader: it reads the spans the
// planner chose from the data file, and takes turns with the other nodes'
// readers so that the shared file system is not hit by all of them at once.
//
// # Overview
//
// SpanReader reads one span with pread(2) into a caller's buffer (normally a
// slice of the node's shared-memory arena). With direct I/O (O_DIRECT) the
// bytes go from the device to the buffer without passing through the page
// cache, so a dataset larger than memory does not evict everything else and a
// cold-cache measurement is honest; the price is that buffer address, length
// and file offset must be multiples of Alignment. Aligned makes such buffers
// for tests and for uses outside shared memory. Where the file system
// prefers larger requests (st_blksize: Lustre and GPFS report their stripe
// or block size), ReadSpan starts all but its first pread on a multiple of
// that size, so that each request the client sends lies on one server.
//
// Stagger implements LMDBIO's staggered reading (STAG): reader r takes its
// turn at a window after reader r-G, so the readers read in waves of G and
// the shared file system never serves more than G of them at once. The turn
// is a small token message over MPI; see stagger.go for the exact protocol.
//
// # Concurrency
//
// ReadSpan and Stats are safe for concurrent use (pread does not move a shared
// file offset; the counters are atomic). A Stagger belongs to one goroutine.
//
// # Invariants
//
//   - ReadSpan returns n < len(dst) with a nil error only when the file ended
//     first; any other short read is retried until dst is full.
//   - With direct I/O, ReadSpan never hands the kernel an unaligned buffer,
//     length or offset: it returns ErrUnaligned instead.
//   - Every reader calls Stagger.Acquire and Release for the same windows
//     0, 1, 2, ... in order.
package reader
