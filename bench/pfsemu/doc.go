// Command pfsemu serves a directory through an emulated parallel file
// system, so that the effects which matter on Lustre or GPFS (per-request
// latency, request size, small readahead for mmap readers, a bandwidth shared
// by all clients, storage servers where the requests of all clients queue)
// show on one machine. The emulation is package
// github.com/lmdbio/lmdbio/bench/pfsemu/emu.
//
// # Usage
//
//	pfsemu [--latency 1ms] [--max-request 1MiB] [--readahead 128KiB]
//	       [--bandwidth 1GB/s] [--direct-io] [--stats FILE] [--ready-file FILE]
//	       [--servers N [--stripe-size 1MiB] [--stripe-count N]
//	        [--server-latency 1ms] [--server-threads 1]
//	        [--server-bandwidth unlimited] [--server-state FILE]]
//	       SRC MOUNTPOINT
//
// pfsemu mounts SRC read-only at MOUNTPOINT and runs in the foreground. When
// the mount is ready it prints one line,
//
//	pfsemu: serving SRC at MNT (latency 1ms, max request 1MiB, readahead 128KiB, bandwidth 1GB/s, replies spliced, bdi 0:39)
//
// "replies spliced": the bytes of a reply go from the source's page cache
// to the FUSE device by splice(2), one copy by the kernel, instead of being
// read into pfsemu first (two copies). Where several emulated hosts share
// one machine, every cycle the emulator spends is taken from the job it
// serves; real storage servers bring their own. A spliced reply must fit in
// one pipe, so pfsemu as root raises /proc/sys/fs/pipe-max-size to the
// largest request plus a page when it is smaller (1 MiB by default, which
// 1 MiB requests exceed) and starts itself again; otherwise it says
// "replies copied".
//
// and creates the --ready-file if given. SIGUSR1 prints the counters as one
// JSON line (type "pfsemu": requests, bytes, largest, opens, direct_opens,
// errors, throttled_s, server_s, queued_s, per_server, elapsed_s, sizes: the
// histogram of request sizes as [{"le":BYTES,"count":N}], and the
// configuration). With --stats FILE the same
// object is written to FILE every second and at exit (atomically replaced),
// so a benchmark driver can read the counters before and after a run and
// subtract. SIGINT or SIGTERM unmount and print the final counters; a busy
// mount is detached lazily, so none is left behind. A stale FUSE mount at
// MOUNTPOINT (a pfsemu that was killed) is detached at start.
//
// Mounting needs root (mount(2) directly) or fusermount; a readahead above
// 128 KiB needs root (it is set in /sys/class/bdi).
//
// # Storage servers
//
// With --servers N every file is striped over N emulated servers (OSTs) as
// Lustre stripes it: --stripe-size bytes on one server, then the next, over
// --stripe-count servers (0: all) starting at a server picked from the
// file's path. Each piece of a read request queues at its server behind the
// work the server has accepted, first come first served, then costs
// --server-latency (disk and RPC handling; --server-threads requests overlap
// it) plus its bytes at --server-bandwidth. So a request's latency grows with
// the requests outstanding at its server. Mounts given the same
// --server-state FILE (one per emulated host, over the same SRC) share the
// servers' queues through that file, mapped shared: the clients of all hosts
// contend as clients of one file system do. The file records the server
// flags; a mount with other ones is refused. Remove it when done. A
// file's st_blksize is then the stripe size, as a Lustre or GPFS client
// reports its stripe or block size as the preferred I/O size: a reader
// that starts its requests there has each served by one server. A request's
// cost is --latency plus the longer of its bandwidth wait and its time at the
// servers; reserving a place in a queue costs well under a microsecond.
// docs/pfsemu.md relates the flags to published Lustre and GPFS figures.
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
//	2  bad flags or arguments, or a --server-state FILE made with other
//	   server flags
//
// Errors are one line on stderr: "pfsemu: what is wrong".
package main
