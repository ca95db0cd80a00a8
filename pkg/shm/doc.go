// Package shm manages the POSIX shared-memory segments through which a
// node's reader hands data to the learners on the same node without
// copying. It is Linux only: segments are files under /dev/shm, created and
// mapped with the system calls shm_open itself is built on.
//
// # Overview
//
// The reader creates a segment with Create, under a name made by Name that
// carries the job id and its own pid, and tells the local learners the
// name; each learner maps it with Open. All of them see the same memory
// through Bytes.
//
// Every segment begins with a 4096-byte header (magic, version, creator pid
// and process start time, job id, data size, checksum). The data region
// Bytes returns starts right after it, so it is 4096-byte aligned, as
// O_DIRECT reads need.
//
// # Lifetime
//
//   - Bytes is valid from Create or Open until Close, in every process that
//     mapped the segment; using it after Close faults.
//   - Unlink removes the name only. Mappings stay valid, and the memory is
//     freed when the last process unmaps it or exits. The creator unlinks
//     as soon as every local process has opened the segment (after a node
//     barrier), so that nothing is left in /dev/shm even if the job is
//     killed with SIGKILL afterwards.
//   - A job killed between Create and Unlink leaves its segment behind.
//     SweepStale finds such segments by the creator's pid and start time in
//     the header and removes them; it never removes the segment of a live
//     process. It assumes it sees the creators in its pid namespace, as
//     processes on one node of a job do.
//   - Open may only be called after Create has returned in the creator
//     (callers synchronise, for example with a barrier): before that the
//     header may be incomplete and Open fails with ErrBadHeader.
//
// A Segment is not safe for concurrent Close and use; Bytes, Name and Info
// may be called from several goroutines.
//
// # Space
//
// /dev/shm is a tmpfs whose pages are allocated on first touch, so a plain
// ftruncate succeeds on a full file system and the process is later killed
// by SIGBUS. Create therefore checks the free space first (CheckFree, which
// says how much is needed and free and what to do) and then reserves every
// page with fallocate, so that a shortage is an error now, not a crash.
package shm
