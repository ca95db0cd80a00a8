// Package shm manages the POSIX shared-memory segments through which a
// node's reader hands data to the learners on the same node without
// copying. It is Linux only: segments are files under /dev/shm, created and
// mapped with the system calls shm_open itself is built on.
//
// # Overview
//
// The node reader creates each segment with CreateUnnamed: a file on the
// shared-memory file system that never has a name (O_TMPFILE), mapped
// read-write. It hands the file's descriptor to each local learner over a
// Unix socket (File), and the learner maps it read-only with OpenFile. All
// of them see the same memory through Bytes. Named segments (Create under a
// name made by Name, mapped by Open) are what earlier versions shared; the
// unnamed ones fall back to a name, unlinked at once, where O_TMPFILE is
// refused.
//
// Every segment begins with a 4096-byte header (magic, version, creator pid
// and process start time, job id, data size, checksum). The data region
// Bytes returns starts right after it, so it is 4096-byte aligned, as
// O_DIRECT reads need.
//
// # Lifetime
//
//   - Bytes is valid until Close, in every process that mapped the segment;
//     using it after Close faults.
//   - An unnamed segment is freed when the last descriptor and mapping of
//     it are gone, however the processes end: a job killed with SIGKILL
//     leaves nothing in /dev/shm.
//   - A named segment stays until Unlink. Unlink removes the name only:
//     mappings stay valid, and the memory is freed when the last process
//     unmaps it or exits. A job killed between Create and Unlink leaves its
//     segment behind. SweepStale finds such segments by the creator's pid
//     and start time in the header and removes them; it never removes the
//     segment of a live process. It assumes it sees the creators in its pid
//     namespace, as processes on one node of a job do.
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
// by SIGBUS. Create and CreateUnnamed therefore check the free space first
// (CheckFree, which says how much is needed and free and what to do) and
// then reserve the pages with fallocate, so that a shortage is an error now,
// not a crash: all of them at once, or, for a lazy unnamed segment, each
// region with Reserve before it is written.
//
// # Huge pages
//
// Where DirEnv names a hugetlbfs mount, the segments are made of huge pages
// from the kernel's pool (vm.nr_hugepages): a process meets 2 MiB of a
// segment with one page fault instead of 512. Files there are sized in
// whole huge pages, their space is what the pool has free (CheckFree,
// Free), and mapping a segment reserves all of its pages, so a pool too
// small is ErrNoSpace at Create, never a SIGBUS.
package shm
