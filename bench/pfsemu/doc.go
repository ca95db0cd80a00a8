// Command pfsemu serves a directory through an emulated parallel file
// system, so that the effects which matter on Lustre or GPFS (per-request
// latency, request size, small readahead for mmap readers, a bandwidth shared
// by all clients) show on one machine. The emulation is package
// github.com/lmdbio/lmdbio/bench/pfsemu/emu.
//
// # Usage
//
//	pfsemu [--latency 1ms] [--max-request 1MiB] [--readahead 128KiB]
//	       [--bandwidth 1GB/s] [--direct-io] [--stats FILE] [--ready-file FILE]
//	       SRC MOUNTPOINT
//
// pfsemu mounts SRC read-only at MOUNTPOINT and runs in the foreground. When
// the mount is ready it prints one line,
//
//	pfsemu: serving SRC at MNT (latency 1ms, max request 1MiB, readahead 128KiB, bandwidth 1GB/s, bdi 0:39)
//
// and creates the --ready-file if given. SIGUSR1 prints the counters as one
// JSON line (type "pfsemu": requests, bytes, largest, opens, direct_opens,
// errors, throttled_s, elapsed_s, sizes: the histogram of request sizes as
// [{"le":BYTES,"count":N}], and the configuration). With --stats FILE the same
// object is written to FILE every second and at exit (atomically replaced),
// so a benchmark driver can read the counters before and after a run and
// subtract. SIGINT or SIGTERM unmount and print the final counters; a busy
// mount is detached lazily, so none is left behind. A stale FUSE mount at
// MOUNTPOINT (a pfsemu that was killed) is detached at start.
//
// Mounting needs root (mount(2) directly) or fusermount; a readahead above
// 128 KiB needs root (it is set in /sys/class/bdi).
//
// # Example
//
// Start it in the background, wait until it serves, run a cold-cache
// benchmark, read the counters, stop it:
//
//	mkdir -p /tmp/pfs
//	bin/pfsemu --stats /tmp/pfs.stats --ready-file /tmp/pfs.ready /data/lmdb /tmp/pfs > /tmp/pfs.log 2>&1 &
//	pfs=$!
//	for i in $(seq 100); do [ -e /tmp/pfs.ready ] && break; sleep 0.1; done
//	[ -e /tmp/pfs.ready ] || { cat /tmp/pfs.log; exit 1; }
//	echo 1 > /proc/sys/vm/drop_caches
//	before=$(jq .requests /tmp/pfs.stats)
//	bin/lmdbio digest /tmp/pfs/train_lmdb
//	kill -USR1 $pfs; sleep 0.2; tail -1 /tmp/pfs.log   # or read /tmp/pfs.stats
//	kill $pfs; wait $pfs
//
// # Exit status
//
//	0  stopped by SIGINT or SIGTERM and unmounted cleanly
//	1  a runtime failure: mounting, unmounting, the stats file, or the mount
//	   was unmounted by someone else
//	2  bad flags or arguments
//
// Errors are one line on stderr: "pfsemu: what is wrong".
package main
