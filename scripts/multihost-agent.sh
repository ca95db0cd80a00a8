#!/usr/bin/env bash
# multihost-agent.sh is the launch agent of scripts/multihost.sh: mpirun
# calls it instead of ssh to start its daemon on an emulated host,
#
#   multihost-agent.sh [SSH-OPTIONS] HOST COMMAND...
#
# It enters new UTS, mount, IPC and PID namespaces and, as the first process
# of the host, sets the host name, mounts a fresh tmpfs on /dev/shm (and a
# hugetlbfs in it with --shm-huge), starts the host's pfsemu if the run has
# one, runs COMMAND with sh -c (the daemon's arguments carry shell quoting),
# and stops pfsemu when COMMAND ends. When the agent dies, the kernel kills
# everything in the host's PID namespace and its mounts go with the mount
# namespace: nothing of a host outlives it.
#
# The run's settings come from the environment multihost.sh exports
# (MULTIHOST_*); it is not meant to be called by hand.
set -euo pipefail

die() { echo "multihost-agent: $*" >&2; exit 1; }

# host_init is the first process of a host: PID 1 of its PID namespace.
host_init() {
	local dir=$1 host=$2 cmd=$3 pfs= ready rc=0
	export MULTIHOST_HOST=$host
	echo "$host" >/proc/sys/kernel/hostname
	mount -t tmpfs -o "mode=1777${MULTIHOST_SHM_SIZE:+,size=$MULTIHOST_SHM_SIZE}" "shm-$host" /dev/shm
	if [ -n "${MULTIHOST_SHM_HUGE:-}" ]; then
		# Beside /dev/shm, not on it: MPI's own files there need a tmpfs.
		mkdir /dev/shm/huge
		mount -t hugetlbfs -o mode=1777 "huge-$host" /dev/shm/huge
		export LMDBIO_SHM_DIR=/dev/shm/huge
	fi

	if [ -n "${MULTIHOST_PFS_SRC:-}" ]; then
		ready=$dir/$host.pfs-ready
		local stats=()
		[ -z "${MULTIHOST_PFS_STATS:-}" ] || stats=(--stats "$MULTIHOST_PFS_STATS/$host.json")
		# The options hold several words on purpose.
		# shellcheck disable=SC2086
		"$MULTIHOST_PFSEMU" $MULTIHOST_PFS_OPTS "${stats[@]}" --ready-file "$ready" \
			"$MULTIHOST_PFS_SRC" "$MULTIHOST_PFS_MNT" >"$dir/$host.pfsemu.log" 2>&1 &
		pfs=$!
		for _ in $(seq 200); do
			[ -e "$ready" ] || ! kill -0 "$pfs" 2>/dev/null && break
			sleep 0.05
		done
		if [ ! -e "$ready" ]; then
			echo "multihost-agent: $host: pfsemu did not start:" >&2
			sed 's/^/    /' "$dir/$host.pfsemu.log" >&2
			exit 1
		fi
	fi

	# PID 1 gets only the signals it handles. Pass them to everything else
	# in this host.
	trap 'kill -TERM -1 2>/dev/null || true' TERM HUP
	trap 'kill -INT -1 2>/dev/null || true' INT
	sh -c "$cmd" &
	local job=$!
	wait "$job" || rc=$?
	while kill -0 "$job" 2>/dev/null; do wait "$job" || rc=$?; done

	if [ -n "$pfs" ]; then
		# pfsemu unmounts and writes its final counters on SIGTERM.
		kill -TERM "$pfs" 2>/dev/null || true
		wait "$pfs" || echo "multihost-agent: $host: pfsemu: $(tail -1 "$dir/$host.pfsemu.log")" >&2
	fi
	exit "$rc"
}

if [ "${1:-}" = --host-init ]; then
	shift
	host_init "$@"
fi

# ssh-style options before the host (MPICH's hydra passes -x) do not apply.
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
[ $# -ge 2 ] || die "usage: $0 [OPTIONS] HOST COMMAND..."
host=$1
shift
dir=${MULTIHOST_DIR:-}
[ -n "$dir" ] && [ -f "$dir/hosts" ] || die "not started by multihost.sh (MULTIHOST_DIR is not set)"
grep -qxF -- "$host" "$dir/hosts" || die "$host is not one of this run's hosts ($(tr '\n' ' ' <"$dir/hosts"))"
[ -z "${MULTIHOST_HOST:-}" ] || die "asked to start $host from inside $MULTIHOST_HOST; hosts are started only from this machine"

# multihost.sh finds the agents of its run by these files and by the
# command line below, which names the run's directory.
: >"$dir/agents/$host.$$"
exec unshare --uts --mount --propagation private --ipc --pid --fork --kill-child --mount-proc \
	-- "$0" --host-init "$dir" "$host" "$*"
