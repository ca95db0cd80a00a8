#!/usr/bin/env bash
# multihost-tests.sh is the test of scripts/multihost.sh (`make
# test-multihost`): a job on 2 emulated hosts x 2 ranks must look like two
# real nodes to MPI and to lmdbio, give the same digest as one rank, talk TCP
# between the hosts, and leave nothing behind, also when interrupted. It
# prints one PASS or FAIL line per check and exits non-zero if one failed.
#
# Usage: scripts/multihost-tests.sh [-h]
#
# Needs root, util-linux's unshare, Open MPI with mpicc (scripts/deps.sh) and
# a built bin/lmdbio, bin/lmdbio-bench and bin/pfsemu (`make build`); skipped,
# with the reason, where this machine does not allow new namespaces. LMDBIO,
# LMDBIO_BENCH and PFSEMU override the binaries under test.
set -euo pipefail

case "${1:-}" in
-h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "multihost-tests: unknown argument $1 (see -h)" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
lmdbio=${LMDBIO:-$root/bin/lmdbio}
kit=${LMDBIO_BENCH:-$root/bin/lmdbio-bench}
export PFSEMU=${PFSEMU:-$root/bin/pfsemu}
multihost=$here/multihost.sh
limit=60 # seconds per job: a hang is a failure, not a stuck CI run

skip() { echo "multihost-tests: skipped: $*"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "needs root (namespaces and mounts)"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
unshare --uts --mount --propagation private --ipc --pid --fork --mount-proc true 2>/dev/null ||
	skip "this machine does not allow new UTS, mount, IPC and PID namespaces"
for f in "$lmdbio" "$kit" "$PFSEMU"; do
	[ -x "$f" ] || { echo "multihost-tests: no $f (make build)" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/lmdbio-multihost-tests.XXXXXX")
bg=
cleanup() {
	trap '' INT TERM
	[ -z "$bg" ] || kill -TERM "$bg" 2>/dev/null || true
	[ -z "$bg" ] || wait "$bg" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
# multihost.sh keeps its run directory here, so the checks can see it go.
mkdir "$work/tmp" "$work/mnt" "$work/stats"
export TMPDIR=$work/tmp

failed=0
t0=$SECONDS
pass() { echo "PASS $1 ($((SECONDS - t0))s)"; t0=$SECONDS; }
fail() {
	echo "FAIL $1: $2 ($((SECONDS - t0))s)"
	t0=$SECONDS
	[ ! -s "$work/err" ] || sed 's/^/    /' "$work/err"
	failed=1
}
# mh runs multihost.sh with a time limit, stdout to $work/out, stderr to
# $work/err.
mh() { timeout -k 5 "$limit" "$multihost" "$@" >"$work/out" 2>"$work/err"; }
# field NAME prints the value of NAME in every JSON line of $work/out.
field() { grep -o "\"$1\":[^,}]*" "$work/out" | cut -d: -f2 | tr -d '"'; }
# left_behind says what a run left: its run directory, a mount or a
# process under $work.
left_behind() {
	local what=""
	[ -z "$(ls -A "$work/tmp")" ] || what+=" files: $(ls "$work/tmp");"
	! grep -qF " $work/" /proc/self/mountinfo || what+=" mounts: $(grep -F " $work/" /proc/self/mountinfo | cut -d' ' -f5 | tr '\n' ' ');"
	local p procs=""
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" != $$ ] || continue
		if tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF "$work/"; then procs+=" ${p#/proc/}"; fi
	done
	[ -z "$procs" ] || what+=" processes:$procs;"
	echo "$what"
}

# 1. Topology: two hosts with their own names, a node per host, two ranks each.
check=topology
if mh --hosts 2 --slots 2 -- "$lmdbio" topology --json; then
	hosts=$(field host | sort -u | tr '\n' ' ')
	nodes=$(field node | sort -u | wc -l)
	sizes=$(field local_size | sort -u | tr '\n' ' ')
	# Every node's ranks are on one host: as many (node, host) pairs as nodes.
	pairs=$(paste -d/ <(field node) <(field host) | sort -u | wc -l)
	if [ "$(field rank | wc -l)" -eq 4 ] && [ "$hosts" = "node1 node2 " ] && [ "$nodes" -eq 2 ] &&
		[ "$sizes" = "2 " ] && [ "$pairs" -eq 2 ]; then
		pass "$check: 2 hosts (node1 node2), nodes=2, local size 2 each"
	else
		fail "$check" "hosts '$hosts', $nodes nodes, local sizes '$sizes', $pairs node/host pairs; output: $(cat "$work/out")"
	fi
else
	fail "$check" "exit $?"
fi

# 2. Each host has its own /dev/shm and its own PID and IPC namespaces.
check=isolation
ours="$(readlink /proc/self/ns/pid) $(readlink /proc/self/ns/ipc)"
if mh --hosts 2 --slots 1 -- sh -c 'echo "$(hostname) $(awk '\''$5 == "/dev/shm" { s = $(NF-1) } END { print s }'\'' /proc/self/mountinfo) $(readlink /proc/self/ns/pid) $(readlink /proc/self/ns/ipc)"' &&
	[ "$(sort "$work/out" | cut -d' ' -f1,2 | tr '\n' ' ')" = "node1 shm-node1 node2 shm-node2 " ] &&
	[ "$( (cut -d' ' -f3,4 "$work/out"; echo "$ours") | tr ' ' '\n' | sort -u | wc -l)" -eq 6 ]; then
	pass "$check: /dev/shm is shm-node1 on node1, shm-node2 on node2; PID and IPC namespaces differ"
else
	fail "$check" "got: $(tr '\n' ' ' <"$work/out"), this machine's: $ours"
fi

# 3. The digest across two hosts is the digest of one rank.
check=digest
"$lmdbio" gen --records 300 --size 8KiB,2KiB --out "$work/data/ds" >/dev/null
want=$("$lmdbio" digest "$work/data/ds") # also builds the index next to the data
if mh --hosts 2 --slots 2 -- "$lmdbio" digest "$work/data/ds" && [ "$(cat "$work/out")" = "$want" ]; then
	pass "$check: 2 hosts x 2 ranks = 1 rank: $want"
else
	fail "$check" "got '$(cat "$work/out")', want '$want'"
fi

# 4. The same through a pfsemu mount per host, at one path on every host,
# with the hosts' clients sharing two storage servers: every host's client
# reads from storage itself and queues at the shared servers.
check=digest-pfs
if [ ! -c /dev/fuse ]; then
	echo "SKIP $check: no /dev/fuse"
elif mh --hosts 2 --slots 2 --pfs "$work/data" --pfs-mount "$work/mnt" --pfs-stats "$work/stats" \
	--pfs-opts '--latency 100us --servers 2 --server-latency 200us' -- "$lmdbio" digest "$work/mnt/ds" &&
	[ "$(cat "$work/out")" = "$want" ]; then
	# requests and request pieces per server, per host
	reads=$(for h in node1 node2; do
		grep -o -e '"requests":[0-9]*' -e '"per_server":\[[0-9,]*\]' "$work/stats/$h.json" 2>/dev/null |
			cut -d: -f2 | paste -sd' ' || echo none
	done | paste -sd';')
	if [[ $reads =~ ^[1-9][0-9]*\ \[[0-9]+,[0-9]+\]\;[1-9][0-9]*\ \[[0-9]+,[0-9]+\]$ ]]; then
		pass "$check: same digest; READ requests and pieces per server, per host: $reads"
	else
		fail "$check" "READ requests and per-server pieces per host: '$reads', want some on both"
	fi
else
	fail "$check" "got '$(cat "$work/out")', want '$want'"
fi

# 4b. The node readers read through the pfsemu mounts (a FUSE file system)
# with O_DIRECT, and the local copy through the page cache.
check=direct
local_direct=$("$lmdbio" digest --json "$work/data/ds" | grep -o '"direct":[a-z]*' | cut -d: -f2)
if [ ! -c /dev/fuse ]; then
	echo "SKIP $check: no /dev/fuse"
elif mh --hosts 2 --slots 2 --pfs "$work/data" --pfs-mount "$work/mnt" --pfs-opts '--latency 100us' -- \
	"$lmdbio" digest --json "$work/mnt/ds" && [ "$(field direct | sort -u)" = true ] && [ "$local_direct" = false ]; then
	pass "$check: O_DIRECT through the pfsemu mounts, the page cache on the local copy"
else
	fail "$check" "direct through pfsemu: '$(field direct | sort -u | paste -sd' ' -)', on the local copy: '$local_direct'"
fi

# 4c. The bench's storage limit is probed through both hosts at once, each
# reading its share: the limit line counts 2 hosts and the whole file.
check=limit-hosts
size=$(stat -c %s "$work/data/ds/data.mdb")
if mh --hosts 2 --slots 1 -- "$kit" bench --json --rounds 1 --modes default --page-cache warm --consumer touch \
	--limit-probes buffered:1x1:64KiB "$work/data/ds" &&
	grep '"type":"limit"' "$work/out" | grep -q "\"hosts\":2,\"bytes\":$size,"; then
	pass "$check: one probe read $size bytes through 2 hosts"
else
	fail "$check" "limit lines: $(grep '"type":"limit"' "$work/out" | tr '\n' ' '), want hosts 2 and bytes $size"
fi

# 5. Between hosts MPI uses TCP: with only shared memory (vader) the hosts
# cannot reach each other. A C program makes the check independent of
# lmdbio's error handling.
check=tcp
cat >"$work/allreduce.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
	int rank, one = 1, sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("sum=%d\n", sum);
	MPI_Finalize();
	return 0;
}
EOF
if ! mpicc -o "$work/allreduce" "$work/allreduce.c" 2>"$work/err"; then
	fail "$check" "mpicc failed"
elif ! mh --hosts 2 --slots 2 --launcher-args '--mca btl self,tcp' -- "$work/allreduce" ||
	[ "$(cat "$work/out")" != "sum=4" ]; then
	fail "$check" "with btl self,tcp: '$(cat "$work/out")', want sum=4"
elif mh --hosts 2 --slots 2 --launcher-args '--mca btl self,vader' -- "$work/allreduce"; then
	fail "$check" "with btl self,vader (shared memory only) the job worked: the hosts share memory"
elif ! grep -q "unable to reach each other" "$work/err"; then
	fail "$check" "with btl self,vader the job failed for another reason than unreachable hosts"
else
	pass "$check: works with btl self,tcp; with self,vader the hosts are unreachable"
fi

# 5b. lmdbio on hosts that cannot reach each other does not hang: its
# start-up watchdog ends it with one line.
check=unreachable
t_start=$SECONDS
if mh --hosts 2 --slots 1 --launcher-args '--mca btl self,vader -x LMDBIO_STARTUP_TIMEOUT=5s' -- "$lmdbio" topology; then
	fail "$check" "lmdbio topology worked on hosts that cannot reach each other"
elif [ $((SECONDS - t_start)) -gt 30 ]; then
	fail "$check" "took $((SECONDS - t_start)) s to end"
elif ! grep -q 'lmdbio: MPI did not finish starting' "$work/err" && ! grep -q 'unable to reach' "$work/err"; then
	fail "$check" "ended without saying why: $(head -c 400 "$work/err")"
else
	pass "$check: lmdbio ends in $((SECONDS - t_start)) s with one line"
fi

# 6. Nothing is left behind after these runs, nor after Ctrl-C in the
# middle of a job with pfsemu mounts.
check=cleanup
what=$(left_behind)
if [ -n "$what" ]; then
	fail "$check" "after the runs:$what"
elif [ ! -c /dev/fuse ]; then
	pass "$check: nothing left after the runs (Ctrl-C not checked: no /dev/fuse)"
else
	rm -f "$work"/stats/*
	# Ctrl-C reaches a foreground job; a background one starts with SIGINT
	# ignored unless told otherwise.
	env --default-signal=INT "$multihost" --hosts 2 --slots 1 --pfs "$work/data" --pfs-mount "$work/mnt" \
		--pfs-stats "$work/stats" -- sleep 300 >"$work/out" 2>"$work/err" &
	bg=$!
	for _ in $(seq 200); do
		[ "$(ls "$work/stats" | wc -l)" -lt 2 ] || break
		sleep 0.05
	done
	sleep 0.2
	kill -INT "$bg"
	rc=0
	for _ in $(seq 300); do kill -0 "$bg" 2>/dev/null || break; sleep 0.05; done
	! kill -0 "$bg" 2>/dev/null || kill -KILL "$bg"
	wait "$bg" || rc=$?
	bg=
	what=$(left_behind)
	if [ "$(ls "$work/stats" | wc -l)" -ne 2 ]; then
		fail "$check" "the pfsemu of each host did not start"
	elif [ "$rc" -ne 130 ] || [ -n "$what" ]; then
		fail "$check" "after Ctrl-C: exit $rc (want 130), left:$what"
	else
		pass "$check: nothing left after the runs and after Ctrl-C (exit 130)"
	fi
fi

exit "$failed"
