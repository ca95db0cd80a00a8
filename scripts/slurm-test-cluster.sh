#!/usr/bin/env bash
# slurm-test-cluster.sh runs a real single-node Slurm cluster (munged,
# slurmctld, slurmd) for the node "localhost", without systemd, so that
# lmdbio's srun code paths can be tested on one machine.
#
# Usage: scripts/slurm-test-cluster.sh start|stop|status|env [DIR]
#
#   start [DIR]   start the cluster; all keys, state, logs, pid files and
#                 spool directories go into DIR (default: a new temporary
#                 directory, remembered so that a later `stop` finds it).
#                 Waits until the node is idle. Prints the client environment
#                 on stdout, so `eval "$(scripts/slurm-test-cluster.sh start)"`
#                 points srun/salloc/sbatch/sinfo at the cluster.
#   stop [DIR]    cancel jobs, stop the daemons, remove DIR. Safe to repeat and
#                 safe when nothing runs.
#   status [DIR]  show the daemons and `sinfo`; exit 0 if the cluster is up.
#   env [DIR]     print the client environment of a running cluster
#                 (the same as `cat DIR/env`).
#
# Environment:
#   LMDBIO_SLURM_CPUS   CPUs the node claims (default 8: tests run up to 8
#                       ranks on any machine; config_overrides allows it)
#   LMDBIO_SLURM_STATE  file remembering the default DIR
#                       (default ${TMPDIR:-/tmp}/lmdbio-slurm-test-cluster.$UID)
#
# Needs root (slurmd starts job steps as the submitting user) and the Debian
# packages slurm-wlm and munge (scripts/deps.sh installs them).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
template_dir=$(cd "$here/../slurm/test" && pwd)
state_file=${LMDBIO_SLURM_STATE:-${TMPDIR:-/tmp}/lmdbio-slurm-test-cluster.$(id -u)}
cpus=${LMDBIO_SLURM_CPUS:-8}
# A directory is only ever deleted if it carries this marker, written by start.
marker=.lmdbio-slurm-test-cluster
# Daemons live in sbin, which is not on every user's PATH.
PATH=$PATH:/usr/sbin:/sbin

usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; }
say() { echo "slurm-test-cluster: $*" >&2; }
die() { say "$*"; exit 1; }

# resolve_dir prints the cluster directory: the argument if given, else the
# one remembered in the state file, else nothing.
resolve_dir() {
	if [ -n "${1:-}" ]; then
		printf '%s\n' "$1"
	elif [ -s "$state_file" ]; then
		cat "$state_file"
	fi
}

# pid_alive DIR NAME succeeds if DIR/NAME.pid names a running process.
pid_alive() {
	local f="$1/$2.pid" pid
	[ -s "$f" ] || return 1
	pid=$(cat "$f")
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# port_in_use PORT succeeds if some socket is bound to TCP PORT (v4 or v6).
# /proc is read directly so that no extra tool is needed.
port_in_use() {
	local hex
	hex=$(printf ':%04X ' "$1")
	grep -qs -- "$hex" /proc/net/tcp /proc/net/tcp6
}

# pick_ports sets ctld_port and slurmd_port to two free adjacent ports.
pick_ports() {
	local try base
	for try in $(seq 1 100); do
		base=$((20000 + (RANDOM % 9000) * 2))
		if ! port_in_use "$base" && ! port_in_use $((base + 1)); then
			ctld_port=$base
			slurmd_port=$((base + 1))
			return 0
		fi
		: "$try"
	done
	die "no two free TCP ports found in 20000-38000"
}

# write_env DIR writes DIR/env: what a client shell needs to use the cluster.
write_env() {
	local dir=$1
	cat >"$dir/env" <<EOF
# Client environment for the lmdbio single-node Slurm test cluster.
# Source it: . $dir/env
# Slurm's clients (srun, salloc, sbatch, sinfo, scancel) find the cluster only
# through SLURM_CONF: it is the one variable the cluster needs.
export SLURM_CONF=$dir/slurm.conf
# Open MPI 4.1 under "srun --mpi=pmix" needs nothing more here, even as root
# (only mpirun checks for root, srun does not). Where it does, set:
#   OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
#       for mpirun as root;
#   PMIX_MCA_gds=hash
#       for "gds"/dstore errors at MPI_Init between Slurm's PMIx server and
#       the application's PMIx library;
#   OMPI_MCA_btl_vader_single_copy_mechanism=none
#       for process_vm_readv errors where a container forbids cross-memory
#       attach (non-root users without ptrace rights).
EOF
}

# tail_logs DIR prints the end of every daemon log, for a failed start.
tail_logs() {
	local f
	for f in "$1"/log/*.log; do
		[ -e "$f" ] || continue
		echo "---- $f (last 25 lines)" >&2
		tail -n 25 "$f" >&2
	done
}

# wait_gone PID SECONDS waits for PID to exit; SIGKILL after SECONDS.
wait_gone() {
	local pid=$1 i
	for i in $(seq 1 $(($2 * 10))); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
		: "$i"
	done
	kill -KILL "$pid" 2>/dev/null || true
	sleep 0.2
}

# stop_daemons DIR NAME... sends SIGTERM to the processes in DIR/NAME.pid
# together (each takes a second or two to shut down) and waits for all.
stop_daemons() {
	local dir=$1 name pid pids=()
	shift
	for name in "$@"; do
		[ -s "$dir/$name.pid" ] || continue
		pid=$(cat "$dir/$name.pid")
		if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null || true
			pids+=("$pid")
		fi
	done
	for pid in "${pids[@]}"; do
		wait_gone "$pid" 15
	done
	for name in "$@"; do
		rm -f "$dir/$name.pid"
	done
}

# stray_steps DIR prints the pids of slurmstepd processes started by this
# cluster's slurmd (they inherit its SLURM_CONF) and of all their descendants.
stray_steps() {
	local conf="SLURM_CONF=$1/slurm.conf" p comm roots=""
	for p in /proc/[0-9]*; do
		read -r comm <"$p/comm" 2>/dev/null || continue
		[ "$comm" = slurmstepd ] || continue
		tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qxF "$conf" && roots="$roots ${p#/proc/}"
	done
	[ -n "$roots" ] || return 0
	# One ps listing; awk adds children of known pids until nothing changes.
	ps -e -o pid=,ppid= | awk -v roots="$roots" '
		BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
		{ parent[$1] = $2 }
		END {
			do {
				changed = 0
				for (p in parent) if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; changed = 1 }
			} while (changed)
			for (p in keep) print p
		}'
}

cmd_stop() {
	local dir
	dir=$(resolve_dir "${1:-}")
	if [ -z "$dir" ] || [ ! -d "$dir" ]; then
		say "nothing to stop"
		[ -z "${1:-}" ] && rm -f "$state_file"
		return 0
	fi
	if pid_alive "$dir" slurmctld && [ -e "$dir/slurm.conf" ]; then
		# Cancel jobs first so slurmd ends their steps cleanly.
		local i jobs
		for i in $(seq 1 20); do
			jobs=$(SLURM_CONF=$dir/slurm.conf timeout 5 squeue -h -o %i 2>/dev/null || true)
			[ -n "$jobs" ] || break
			[ "$i" = 1 ] && SLURM_CONF=$dir/slurm.conf timeout 5 scancel --partition=test >/dev/null 2>&1
			sleep 0.5
		done
	fi
	stop_daemons "$dir" slurmd slurmctld
	local pids
	pids=$(stray_steps "$dir")
	if [ -n "$pids" ]; then
		# shellcheck disable=SC2086 # one pid per word
		kill -KILL $pids 2>/dev/null || true
	fi
	stop_daemons "$dir/munge" munged
	if [ -e "$dir/$marker" ]; then
		rm -rf "$dir"
	else
		say "$dir was not made by this script; left in place"
	fi
	if [ -s "$state_file" ] && [ "$(cat "$state_file")" = "$dir" ]; then
		rm -f "$state_file"
	fi
	say "stopped ($dir)"
}

cmd_status() {
	local dir name up=0
	dir=$(resolve_dir "${1:-}")
	if [ -z "$dir" ] || [ ! -d "$dir" ]; then
		say "not running"
		return 1
	fi
	echo "directory: $dir"
	for name in munge/munged slurmctld slurmd; do
		if pid_alive "$dir" "$name"; then
			echo "${name#munge/}: running (pid $(cat "$dir/$name.pid"))"
		else
			echo "${name#munge/}: not running"
			up=1
		fi
	done
	if [ $up = 0 ]; then
		SLURM_CONF=$dir/slurm.conf timeout 10 sinfo || up=1
	fi
	return $up
}

cmd_env() {
	local dir
	dir=$(resolve_dir "${1:-}")
	if [ -z "$dir" ] || [ ! -s "$dir/env" ]; then
		die "no cluster running (start one first)"
	fi
	cat "$dir/env"
}

# wait_pidfile DIR NAME waits until a daemon that forked itself into the
# background has written DIR/NAME.pid, so that stop can always find it.
wait_pidfile() {
	local i
	for i in $(seq 1 100); do
		[ -s "$1/$2.pid" ] && return 0
		sleep 0.1
		: "$i"
	done
	start_failed "$1" "$2 wrote no pid file within 10 s"
}

# start_failed DIR reports a failed start with the logs and cleans up.
start_failed() {
	say "$2"
	tail_logs "$1"
	cmd_stop "$1" >/dev/null 2>&1 || true
	exit 1
}

cmd_start() {
	local dir=${1:-} i state name
	[ "$(id -u)" -eq 0 ] || die "must run as root (slurmd launches job steps as their user)"
	for i in munged mungekey munge slurmctld slurmd sinfo srun; do
		command -v "$i" >/dev/null || die "$i not found: install slurm-wlm and munge (scripts/deps.sh)"
	done

	if [ -z "$dir" ] && [ -s "$state_file" ]; then
		dir=$(cat "$state_file")
		if pid_alive "$dir" slurmctld && pid_alive "$dir" slurmd; then
			say "already running in $dir"
			cat "$dir/env"
			return 0
		fi
		say "cleaning up a dead cluster in $dir"
		cmd_stop "$dir"
		dir=
	fi
	if [ -z "$dir" ]; then
		dir=$(mktemp -d "${TMPDIR:-/tmp}/lmdbio-slurm.XXXXXX")
		touch "$dir/$marker"
		echo "$dir" >"$state_file"
	else
		if [ -e "$dir/$marker" ] && pid_alive "$dir" slurmctld && pid_alive "$dir" slurmd; then
			say "already running in $dir"
			cat "$dir/env"
			return 0
		fi
		[ -e "$dir/$marker" ] && cmd_stop "$dir"
		if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
			die "$dir exists and is not empty; give a new or empty directory"
		fi
		mkdir -p "$dir"
		dir=$(cd "$dir" && pwd)
		touch "$dir/$marker"
	fi
	# munged wants its key private and its socket reachable by every user
	# (clients of any user authenticate through it), so they live apart.
	chmod 0755 "$dir"
	mkdir -p "$dir/munge" "$dir/run" "$dir/log" "$dir/ctld" "$dir/slurmd"
	chmod 0700 "$dir/munge"
	chmod 0755 "$dir/run"
	local up=$dir
	while [ "$up" != / ]; do
		up=$(dirname "$up")
		if [ -n "$(find "$up" -maxdepth 0 ! -perm -o=x)" ]; then
			start_failed "$dir" "munged needs every directory above its socket searchable by all: chmod o+x $up"
		fi
	done

	# munge: a fresh key for this cluster only.
	mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null 2>&1 ||
		dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
	chmod 0400 "$dir/munge/munge.key"
	munged --socket="$dir/run/munge.socket" \
		--key-file="$dir/munge/munge.key" \
		--pid-file="$dir/munge/munged.pid" \
		--log-file="$dir/log/munged.log" \
		--seed-file="$dir/munge/munged.seed" ||
		start_failed "$dir" "munged did not start"
	wait_pidfile "$dir/munge" munged
	for i in $(seq 1 50); do
		munge -n --socket="$dir/run/munge.socket" 2>/dev/null |
			unmunge --socket="$dir/run/munge.socket" >/dev/null 2>&1 && break
		[ "$i" = 50 ] && start_failed "$dir" "munged does not answer on $dir/run/munge.socket"
		sleep 0.1
	done

	local ctld_port slurmd_port
	pick_ports
	sed -e "s|@DIR@|$dir|g" -e "s|@CTLD_PORT@|$ctld_port|g" \
		-e "s|@SLURMD_PORT@|$slurmd_port|g" -e "s|@CPUS@|$cpus|g" \
		"$template_dir/slurm.conf.in" >"$dir/slurm.conf"
	write_env "$dir"

	export SLURM_CONF=$dir/slurm.conf
	# -c: start from empty state; -i: ignore any stale state errors.
	slurmctld -c -i || start_failed "$dir" "slurmctld did not start"
	wait_pidfile "$dir" slurmctld
	slurmd -N localhost || start_failed "$dir" "slurmd did not start"
	wait_pidfile "$dir" slurmd

	for i in $(seq 1 120); do
		state=$(timeout 5 sinfo -h -n localhost -o %T 2>/dev/null || true)
		case "$state" in idle | mixed | allocated) break ;; esac
		for name in slurmctld slurmd; do
			pid_alive "$dir" "$name" || start_failed "$dir" "$name exited during start-up"
		done
		[ "$i" = 120 ] && start_failed "$dir" "node not idle after 60 s (state: ${state:-none})"
		sleep 0.5
	done
	say "up in $dir (slurmctld :$ctld_port, slurmd :$slurmd_port, $cpus CPUs)"
	cat "$dir/env"
}

case "${1:-}" in
start) cmd_start "${2:-}" ;;
stop) cmd_stop "${2:-}" ;;
status) cmd_status "${2:-}" ;;
env) cmd_env "${2:-}" ;;
-h | --help | help) usage ;;
*) usage >&2; exit 2 ;;
esac
