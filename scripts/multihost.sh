#!/usr/bin/env bash
# multihost.sh runs an MPI job on N emulated hosts on this machine, so that
# MPI itself sees N hosts: every host has its own host name, its own /dev/shm
# (a fresh tmpfs), its own PID and System V IPC namespaces and, with --pfs,
# its own mount of the parallel-file-system emulator (bin/pfsemu) over one
# backing directory, so its own client page cache and readahead. Ranks on one
# host share memory (MPI_Comm_split_type SHARED groups them per host); ranks
# on different hosts talk over TCP. The MPI launcher starts its daemon on
# each host (Open MPI's orted, MPICH's hydra proxy) through a launch agent,
# scripts/multihost-agent.sh, instead of ssh.
#
# Usage:
#   scripts/multihost.sh [OPTIONS] -- PROGRAM [ARGS...]
#       mpirun -np HOSTS*SLOTS PROGRAM on the emulated hosts.
#   scripts/multihost.sh [OPTIONS] --wrap -- COMMAND [ARGS...]
#       COMMAND runs on this machine; every mpirun it starts (e.g.
#       `lmdbio run -n 8 -- ...`, bench/run.sh) places its ranks on the
#       emulated hosts. Each such job gets fresh hosts and fresh pfsemu mounts.
#
# Options:
#   --hosts N             emulated hosts (default 2, at most 64)
#   --slots S             ranks per host (default 2)
#   --mpi openmpi|mpich   the MPI whose launcher to set up (default openmpi;
#                         mpich: mpiexec.mpich, for a -tags mpich build)
#   --launcher-args 'A'   more mpirun options, e.g. '--mca btl self,tcp'
#   --name PREFIX         host names PREFIX1..PREFIXN (default node)
#   --shm-size SIZE       size of each host's /dev/shm (default: tmpfs's, half the memory)
#   --shm-huge            lmdbio's segments on huge pages: a hugetlbfs in each host's
#                         /dev/shm/huge (LMDBIO_SHM_DIR), drawing on the machine's
#                         pool (vm.nr_hugepages, which must hold them all)
#   --pfs DIR             mount bin/pfsemu over DIR in every host
#   --pfs-mount MNT       where, the same path on every host (default /mnt/pfs)
#   --pfs-opts 'OPTS'     pfsemu flags, e.g. '--direct-io --servers 4 --latency 500us'
#   --pfs-stats DIR       every host's pfsemu writes its counters to DIR/HOST.json
#   -h, --help
#
# With --servers in --pfs-opts, all hosts' emulators share one set of
# emulated storage servers (pfsemu --server-state), as clients of one file
# system do. Needs root, util-linux's unshare and the MPI. Everything it
# makes (namespaces, mounts, pfsemu processes, the temporary directory, a
# mount point it had to create) is removed when it exits, also on Ctrl-C.
# Exit status: the job's; 2 for bad usage; 3 when this machine does not allow
# the namespaces (e.g. an unprivileged container); 128+N after signal N.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

# usage prints the comment at the top of this file.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die() { echo "multihost: $*" >&2; exit "${2:-1}"; }
usage_error() { echo "multihost: $* (see --help)" >&2; exit 2; }

hosts=2 slots=2 name=node wrap= launcher_args= shm_size= shm_huge= mpi=openmpi
pfs_src= pfs_mnt= pfs_opts= pfs_stats=
while [ $# -gt 0 ]; do
	case "$1" in
	--hosts | --slots | --mpi | --launcher-args | --name | --shm-size | --pfs | --pfs-mount | --pfs-opts | --pfs-stats)
		[ $# -ge 2 ] || usage_error "$1 needs a value"
		case "$1" in
		--mpi) mpi=$2 ;;
		--hosts) hosts=$2 ;;
		--slots) slots=$2 ;;
		--launcher-args) launcher_args=$2 ;;
		--name) name=$2 ;;
		--shm-size) shm_size=$2 ;;
		--pfs) pfs_src=$2 ;;
		--pfs-mount) pfs_mnt=$2 ;;
		--pfs-opts) pfs_opts=$2 ;;
		--pfs-stats) pfs_stats=$2 ;;
		esac
		shift 2
		;;
	--wrap) wrap=1; shift ;;
	--shm-huge) shm_huge=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	*) usage_error "unknown option $1" ;;
	esac
done
[ $# -gt 0 ] || usage_error "no command given"
[[ $hosts =~ ^[0-9]+$ ]] && [ "$hosts" -ge 1 ] && [ "$hosts" -le 64 ] ||
	usage_error "--hosts $hosts: want 1 to 64"
# 64 is Open MPI's default routing radix: up to it, mpirun starts every
# host's daemon itself; beyond, daemons would start each other from inside
# their own host's namespaces.
[[ $slots =~ ^[0-9]+$ ]] && [ "$slots" -ge 1 ] || usage_error "--slots $slots: want at least 1"
[[ $name =~ ^[a-z][a-z0-9-]*$ ]] || usage_error "--name $name: want a lower-case host name prefix"
[ -z "$shm_size" ] || [[ $shm_size =~ ^[0-9]+[kmgKMG%]?$ ]] || usage_error "--shm-size $shm_size: want e.g. 512m, 2g or 25%"
case $mpi in
openmpi) mpirun=mpirun ;;
mpich) mpirun=mpiexec.mpich ;;
*) usage_error "--mpi $mpi: want openmpi or mpich" ;;
esac
[ -n "$pfs_src" ] || [ -z "$pfs_mnt$pfs_opts$pfs_stats" ] || usage_error "--pfs-mount, --pfs-opts and --pfs-stats need --pfs"
if [ -n "$pfs_src" ]; then
	[ -d "$pfs_src" ] || usage_error "--pfs $pfs_src: not a directory"
	pfs_src=$(cd "$pfs_src" && pwd -P)
	pfs_mnt=${pfs_mnt:-/mnt/pfs}
	[[ $pfs_mnt == /* ]] || usage_error "--pfs-mount $pfs_mnt: want an absolute path"
	pfs_mnt=${pfs_mnt%/}
	[ "$pfs_mnt" != "$pfs_src" ] || usage_error "--pfs-mount must differ from --pfs (the emulator reads the backing directory)"
	pfsemu=${PFSEMU:-$root/bin/pfsemu}
	[ -x "$pfsemu" ] || die "no $pfsemu: build it (make build) or set PFSEMU"
	if [ -n "$pfs_stats" ]; then
		mkdir -p "$pfs_stats"
		pfs_stats=$(cd "$pfs_stats" && pwd -P)
	fi
fi
[ "$(id -u)" -eq 0 ] || die "needs root (namespaces, mounts)" 3
for tool in unshare mount "$mpirun"; do
	command -v "$tool" >/dev/null || die "$tool not found (util-linux, mount, the MPI: scripts/deps.sh)"
done
unshare --uts --mount --propagation private --ipc --pid --fork --mount-proc true 2>/dev/null ||
	die "this machine does not allow new UTS, mount, IPC and PID namespaces (unshare failed)" 3

state=$(mktemp -d "${TMPDIR:-/tmp}/multihost.XXXXXX")
made_dirs=() # mount point directories this run created, deepest last
job=
signalled=
cleanup() {
	trap '' INT TERM HUP
	[ -z "$job" ] || kill -KILL "$job" 2>/dev/null || true
	stop_agents
	rm -rf "$state"
	local i
	for ((i = ${#made_dirs[@]} - 1; i >= 0; i--)); do
		rmdir "${made_dirs[i]}" 2>/dev/null || echo "multihost: left ${made_dirs[i]} (not empty)" >&2
	done
}
trap cleanup EXIT

# stop_agents waits for the launch agents of this run to end (a host's
# agent ends after its daemon and its pfsemu), then kills those left: killing
# an agent kills its host's whole PID namespace, and the host's mounts go
# with it.
stop_agents() {
	local deadline=$((SECONDS + 10)) f pid left
	while :; do
		left=()
		for f in "$state"/agents/*; do
			[ -e "$f" ] || continue
			pid=${f##*.}
			# The agent's command line names this run's directory: a
			# recycled PID is not ours.
			if tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "--host-init $state "; then
				left+=("$pid")
			fi
		done
		[ ${#left[@]} -gt 0 ] || return 0
		if [ $SECONDS -ge $deadline ]; then
			echo "multihost: killing ${#left[@]} host(s) that did not stop" >&2
			kill -KILL "${left[@]}" 2>/dev/null || true
			sleep 0.2
			return 0
		fi
		sleep 0.05
	done
}

# The hosts: a hostfile for mpirun, the names the agent accepts, and a
# private /etc/hosts in which they resolve (to loopback addresses that are no
# interface's, so Open MPI does not take them for this machine; ranks reach
# each other at this machine's real addresses all the same).
mkdir "$state/agents" "$state/ompi"
names=()
for ((i = 1; i <= hosts; i++)); do names+=("$name$i"); done
printf '%s\n' "${names[@]}" >"$state/hosts"
if [ "$mpi" = mpich ]; then
	printf "%s:$slots\n" "${names[@]}" >"$state/hostfile"
else
	printf "%s slots=$slots\n" "${names[@]}" >"$state/hostfile"
fi
{
	grep -v -w -F "${names[@]/#/-e}" /etc/hosts || true
	for ((i = 1; i <= hosts; i++)); do echo "127.77.0.$i $name$i"; done
} >"$state/etc-hosts"

if [ -n "$pfs_src" ] && [ ! -d "$pfs_mnt" ]; then
	d=$pfs_mnt
	while [ ! -e "$d" ]; do made_dirs=("$d" "${made_dirs[@]}"); d=$(dirname "$d"); done
	mkdir -p "$pfs_mnt"
fi
# The hosts' emulators share their servers' queues through one file.
if [[ " $pfs_opts " =~ [[:space:]]--servers[=[:space:]] ]] && [[ " $pfs_opts " != *" --server-state"* ]]; then
	pfs_opts+=" --server-state $state/pfs-servers"
fi

agent=$here/multihost-agent.sh
[[ $agent != *[[:space:]]* ]] || die "the path of $agent holds a space; Open MPI splits the agent command at spaces"
[[ $state != *[[:space:]]* ]] || die "TMPDIR holds a space: $state"

# The launcher reads these in every job under this script.
if [ "$mpi" = mpich ]; then
	export HYDRA_HOST_FILE=$state/hostfile HYDRA_LAUNCHER=ssh HYDRA_LAUNCHER_EXEC=$agent
	# ch4's shared-memory and UCX transports must not see the other
	# hosts as local; TCP is what real hosts share.
	export UCX_TLS=${UCX_TLS:-self,sm,tcp}
else
	export OMPI_MCA_plm_rsh_agent=$agent
	export OMPI_MCA_orte_default_hostfile=$state/hostfile
	export OMPI_MCA_hwloc_base_binding_policy=none
	export OMPI_MCA_orte_tmpdir_base=$state/ompi # session directories go with the run
	export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	# Every emulated host's slots share this machine's cores, which Open MPI
	# cannot see from the hostfile: ranks waiting in MPI must yield the
	# core (docs/decisions/0007-yield-when-idle.md).
	export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
fi
# What the agent needs to set a host up.
export MULTIHOST_DIR=$state MULTIHOST_SHM_SIZE=$shm_size MULTIHOST_SHM_HUGE=$shm_huge
export MULTIHOST_PFS_SRC=$pfs_src MULTIHOST_PFS_MNT=$pfs_mnt MULTIHOST_PFS_OPTS=$pfs_opts
export MULTIHOST_PFS_STATS=$pfs_stats MULTIHOST_PFSEMU=${pfsemu:-}

if [ -n "$wrap" ]; then
	cmd=("$@")
else
	# launcher_args holds several words on purpose.
	# shellcheck disable=SC2206
	cmd=("$mpirun" -np $((hosts * slots)) $launcher_args "$@")
fi

stop() {
	signalled=$1
	[ -z "$job" ] || kill -s "$1" "$job" 2>/dev/null || true
}
trap 'stop INT' INT
trap 'stop TERM' TERM
trap 'stop HUP' HUP

# The job runs in a mount namespace of its own, where the private hosts file
# is /etc/hosts; every host's namespaces are made inside it.
unshare --mount --propagation private -- bash -c 'mount --bind "$0" /etc/hosts && exec "$@"' \
	"$state/etc-hosts" "${cmd[@]}" &
job=$!
rc=0
wait "$job" || rc=$?
if [ -n "$signalled" ]; then
	# The job was told to stop; give it time to take its ranks down.
	for _ in $(seq 100); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$job" 2>/dev/null || true
	wait "$job" 2>/dev/null || true
	rc=$((128 + $(kill -l "$signalled")))
fi
job=
exit "$rc"
