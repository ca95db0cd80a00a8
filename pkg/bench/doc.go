// Package bench holds the measurement side of `lmdbio bench`: what a
// benchmark reads from the operating system, how it turns per-rank samples
// into one result, and the JSON lines it prints.
//
// # Overview
//
// A measurement runs the loader on every learner of a job and collects, per
// rank, a RankSample: records and bytes delivered, the digest of what the
// consumer saw, time to first batch, time spent waiting inside Next, emulated
// compute time, and what the operating system says the process did
// (/proc/self/io read_bytes and syscr, peak RSS). Aggregate turns the
// samples of one measurement into a Result line.
//
// The physical limit of the storage is a plain sequential read of the data
// file with large buffers (SequentialRead), with and without O_DIRECT.
// Cold-cache runs drop the page cache first (DropCaches), which needs root.
//
// Peers (other loaders run as subprocesses) print one JSON line each;
// ParsePeerLine reads it and SumPeers adds up the shares of a multi-process
// peer. Agreement checks that every contender delivered the same records,
// bytes and digest: a contender that read something wrong is an error, not
// a fast result.
//
// records.go defines the JSON lines (Result, Limit, Peer, AUSearch, Summary,
// Ratio) that tools reading bench's output can decode with the same types.
//
// Workloads emulate the DLIO / MLPerf Storage accelerators: per-batch compute
// time by sleeping, accelerator utilisation AU = compute time / wall time,
// and MaxAccelerators finds the largest number of emulated accelerators per
// node that keeps AU at or above the workload's threshold.
//
// # What the counters mean
//
// read_bytes in /proc/self/io counts bytes the process caused to be fetched
// from the storage layer (block device or network file system); reads served
// from the page cache do not count, so a warm run shows (almost) zero. syscr
// counts read-type system calls (read, pread, readv...), whether or not they
// hit the cache; page faults of an mmap are not system calls and do not count
// in syscr, though the bytes they bring in from storage count in read_bytes.
//
// # Invariants
//
//   - Nothing here asserts or depends on a speed: tests check arithmetic and
//     parsing only.
//   - Digests are sums modulo 2^64, so adding shares in any order gives the
//     same total.
package bench
