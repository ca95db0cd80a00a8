// Package bench holds the measurement side of `lmdbio-bench bench`: what a
// benchmark reads from the operating system, how it turns per-rank samples
// into one result, and the JSON lines it prints.
//
// # Overview
//
// A measurement runs the loader on every learner of a job and collects, per
// rank, a RankSample: records and bytes delivered, the digest of what the
// consumer saw, start-up, time to first batch, time spent waiting inside
// Next, emulated compute time, and what the operating system says the
// process did (/proc/self/io read_bytes and syscr, peak RSS). Summarize
// turns the samples of one measurement into a Result line.
//
// Equal work: every contender runs the same consumer (TouchPages reads one
// byte in every page of every value, the last page included; SHA256 hashes
// every record as lmdbio digest does) and is timed over the same window:
// from the start of its loader to its last batch. What a process pays
// before any loader can start is left out and reported on its own: a
// process's start (for lmdbio's learners the exec, the dynamic linking, the
// Go runtime and the packages' initialisation; for a peer its interpreter
// and imports: PeerLine.FromReady moves a peer's times to count from their
// end) and lmdbio's MPI start-up. lmdbio's learners start once for a whole
// run, so what their program did before the job (less MPI's start-up) is
// added to the time from before Open to the last batch.
//
// The limit of the storage is the fastest of several probes that read the
// data file front to back the way a tuned reader would (SequentialRead with
// a Probe: buffered or O_DIRECT, several streams, several requests in
// flight). stats.AboveLimit flags a contender whose median exceeds it by more
// than the noise band of the two. Cold-cache runs drop the page cache first
// (DropCaches), which needs root.
//
// Peers (other loaders run as subprocesses) print one JSON line each;
// ParsePeerLine reads it and SumPeers adds up the shares of a multi-process
// peer. Agreement checks that every contender delivered the same records,
// bytes and digest: a contender that read something wrong is an error, not
// a fast result.
//
// records.go defines the JSON lines (Result, Limit, Peer, AUSearch, Summary,
// Ratio) that tools reading bench's output (the report, lmdbio-bench model) can
// decode with the same types.
//
// Workloads emulate the DLIO / MLPerf Storage accelerators: per-batch compute
// time by sleeping, accelerator utilisation AU = compute time / wall time,
// and MaxAccelerators finds the largest number of emulated accelerators per
// node that keeps AU at or above the workload's threshold. StallRuns holds
// the three runs of DS-Analyzer's differential method (synthetic data in
// memory, cold, fully cached) behind lmdbio-bench stall; Analyze turns them into
// the prep and fetch stalls and what would remove them, WhatIf into the
// epoch time with part of the dataset cached.
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
