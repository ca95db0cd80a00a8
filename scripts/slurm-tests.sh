#!/usr/bin/env bash
# slurm-tests.sh is the Slurm integration test (`make test-slurm`). It starts
# a private single-node Slurm cluster (scripts/slurm-test-cluster.sh), runs
# lmdbio under real srun/salloc, prints one PASS or FAIL line per check and
# exits non-zero if any check failed. The cluster is stopped on every exit,
# including failures and interrupts.
#
# Usage: scripts/slurm-tests.sh [-h]
#
# Needs root, slurm-wlm, munge and OpenMPI (scripts/deps.sh) and a built
# bin/lmdbio (`make build`). LMDBIO overrides the binary under test.
set -euo pipefail

case "${1:-}" in
-h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "slurm-tests: unknown argument $1 (see -h)" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
lmdbio=${LMDBIO:-$root/bin/lmdbio}
cluster=$here/slurm-test-cluster.sh
limit=120 # seconds per Slurm command: a hang is a failure, not a stuck CI run

check_pid= # the running check, for the clean-up
work=$(mktemp -d "${TMPDIR:-/tmp}/lmdbio-slurm-tests.XXXXXX")
# munged serves its socket to every user, so the path to it must be searchable.
chmod 0711 "$work"
# descendants PID prints PID and every process below it, one per line.
descendants() {
	ps -e -o pid=,ppid= | awk -v root="$1" '
		{ parent[$1] = $2 }
		END {
			keep[root] = 1
			do {
				changed = 0
				for (p in parent) if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; changed = 1 }
			} while (changed)
			for (p in keep) print p
		}'
}
cleanup() {
	# A second signal must not cut the clean-up short.
	trap '' INT TERM
	if [ -n "$check_pid" ]; then
		# Signals to `timeout` do not reach everything: salloc ignores
		# SIGTERM and runs its command in a process group of its own. So
		# the whole process tree of the running check is ended.
		local tree
		tree=$(descendants "$check_pid")
		# shellcheck disable=SC2086 # one pid per word
		kill -TERM $tree 2>/dev/null || true
		sleep 1
		# shellcheck disable=SC2086
		kill -KILL $tree 2>/dev/null || true
	fi
	"$cluster" stop "$work/cluster" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! "$cluster" start "$work/cluster" >"$work/env" 2>"$work/start.log"; then
	cat "$work/start.log" >&2
	echo "FAIL cluster start"
	echo "slurm-tests: 0 passed, 1 failed"
	exit 1
fi
# shellcheck disable=SC1091 # written by slurm-test-cluster.sh at run time
. "$work/env"
# Tests run inside salloc/srun, which must not see an outer job's variables.
unset SLURM_JOB_ID SLURM_JOBID SLURM_STEP_ID SLURM_NTASKS SLURM_NPROCS SLURM_NNODES
unset LMDBIO_RANKS_PER_NODE

passed=0
failed=0
out=$work/out   # stdout of the command under test
err=$work/err   # its stderr

# check NAME FUNC runs FUNC, which returns non-zero (after printing why) on
# failure, and reports the result on one line. FUNC runs in the background
# and is waited for, because bash runs a signal trap only between foreground
# commands: an interrupt would otherwise wait for the check to time out.
check() {
	local name=$1 why=$work/why rc=0
	shift
	"$@" >"$why" 2>&1 &
	check_pid=$!
	wait "$check_pid" || rc=$?
	check_pid=
	if [ "$rc" = 0 ]; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name"
		sed 's/^/    /' "$why"
		for f in "$out" "$err"; do
			[ -s "$f" ] || continue
			echo "    --- ${f##*/} (last 15 lines)"
			tail -n 15 "$f" | sed 's/^/    /'
		done
		failed=$((failed + 1))
	fi
	rm -f "$out" "$err" "$why"
}

# run CMD... runs a command under the time limit, stdout to $out, stderr to $err.
run() {
	timeout "$limit" "$@" >"$out" 2>"$err"
}

# field NAME prints the integer values of JSON field NAME, one per rank line.
field() {
	grep '"type" *: *"rank"' "$out" | grep -o "\"$1\" *: *[0-9]*" | grep -o '[0-9]*$'
}

# expect_ranks N NODES LOCAL checks $out for N rank lines numbered 0..N-1, on
# node ids 0..NODES-1, each reporting local_size LOCAL.
expect_ranks() {
	local n=$1 nodes=$2 local_size=$3 got
	got=$(grep -c '"type" *: *"rank"' "$out" || true)
	[ "$got" = "$n" ] || { echo "want $n rank lines, got $got"; return 1; }
	got=$(field rank | sort -n | tr '\n' ' ')
	[ "$got" = "$(seq 0 $((n - 1)) | tr '\n' ' ')" ] || { echo "ranks are ${got% }"; return 1; }
	got=$(field node | sort -nu | tr '\n' ' ')
	[ "$got" = "$(seq 0 $((nodes - 1)) | tr '\n' ' ')" ] || { echo "want nodes 0..$((nodes - 1)), got ${got% }"; return 1; }
	got=$(field local_size | sort -u | tr '\n' ' ')
	[ "$got" = "$local_size " ] || { echo "want local_size $local_size, got ${got% }"; return 1; }
}

have_lmdbio() {
	[ -x "$lmdbio" ] || { echo "$lmdbio missing: run make build"; return 1; }
}

t_mpi_list() {
	run srun --mpi=list || return 1
	grep -qw pmix "$out" "$err" || { echo "srun --mpi=list does not offer pmix"; return 1; }
}

t_srun() {
	run srun -n 4 true
}

t_run_in_allocation() {
	have_lmdbio || return 1
	run salloc -Q -n 4 "$lmdbio" run -n 4 -- "$lmdbio" topology --json || return 1
	expect_ranks 4 1 4
}

t_run_virtual_nodes() {
	have_lmdbio || return 1
	LMDBIO_RANKS_PER_NODE=2 run salloc -Q -n 4 "$lmdbio" run -n 4 -- "$lmdbio" topology --json || return 1
	expect_ranks 4 2 2
}

t_srun_pmix() {
	have_lmdbio || return 1
	run srun --mpi=pmix -n 4 "$lmdbio" topology --json || return 1
	expect_ranks 4 1 4
}

t_dry_run() {
	have_lmdbio || return 1
	run salloc -Q -n 4 "$lmdbio" run --dry-run -n 4 -- true || return 1
	local line
	line=$(grep -v '^[[:space:]]*$' "$out" | head -n 1)
	[[ $line =~ ^([^[:space:]]*/)?srun[[:space:]] ]] || { echo "command does not start with srun: $line"; return 1; }
	[[ $line == *--mpi=pmix* ]] || { echo "command lacks --mpi=pmix: $line"; return 1; }
}

# Open MPI started by srun without PMIx cannot initialise; lmdbio must say
# so in one line naming the fix, not print Open MPI's banner or hang.
t_srun_without_pmix() {
	have_lmdbio || return 1
	local rc=0
	run srun --mpi=none -n 2 "$lmdbio" topology || rc=$?
	[ "$rc" != 0 ] || { echo "exited 0; want a failure"; return 1; }
	[ "$rc" != 124 ] || { echo "timed out after $limit s"; return 1; }
	grep -q '^lmdbio: .*--mpi=pmix' "$err" || { echo "no 'lmdbio: ...--mpi=pmix' line on stderr"; return 1; }
	if grep -q -e 'OMPI was not built' -e '^goroutine ' -e '^panic:' "$err"; then
		echo "stderr has an Open MPI banner or a Go panic"
		return 1
	fi
	# One message per rank, each on one line: all lmdbio lines are the same.
	local kinds
	kinds=$(grep '^lmdbio: ' "$err" | sort -u | wc -l)
	[ "$kinds" = 1 ] || { echo "want one distinct lmdbio error line, got $kinds"; return 1; }
}

# A rank killed by a signal: lmdbio run exits 1 (not srun's status) with one
# line naming the rank and the signal.
t_run_rank_signal() {
	have_lmdbio || return 1
	local rc=0
	run salloc -Q -n 2 "$lmdbio" run -n 2 -- sh -c '[ "$SLURM_PROCID" = 1 ] && kill -KILL $$; sleep 20' || rc=$?
	[ "$rc" = 1 ] || { echo "exit $rc, want 1"; return 1; }
	grep -q '^lmdbio run: rank 1 on .* was killed by signal 9 (SIGKILL)$' "$err" || { echo "no line naming rank 1 and SIGKILL"; return 1; }
}

# SIGKILL of lmdbio run, which it cannot catch, ends its srun step while
# the allocation goes on (the job script carries on after it).
t_run_killed() {
	have_lmdbio || return 1
	local marker i
	marker=$((4000 + RANDOM % 1000)).$RANDOM
	rm -f "$work/end"
	timeout "$limit" salloc -Q -n 2 sh -c "\"$lmdbio\" run -n 2 -- sleep $marker; until [ -e \"$work/end\" ]; do sleep 0.1; done" >"$out" 2>"$err" &
	for i in $(seq 100); do
		[ "$(pgrep -c -f "^([^ ]*/)?sleep $marker\$")" = 2 ] && break
		sleep 0.1
	done
	[ "$(pgrep -c -f "^([^ ]*/)?sleep $marker\$")" = 2 ] || { echo "the ranks did not start: $(pgrep -a -f "$marker" | tr '\n' ';') $(cat "$err")"; return 1; }
	pkill -KILL -f "^$lmdbio run -n 2 -- sleep $marker\$"
	for i in $(seq 100); do
		[ "$(pgrep -c -f "^([^ ]*/)?sleep $marker\$")" = 0 ] && break
		sleep 0.1
	done
	local left
	left=$(pgrep -a -f "^([^ ]*/)?sleep $marker\$" | tr '\n' ';' || true)
	touch "$work/end" # the job script ends, and with it the allocation
	wait || true
	if [ -n "$left" ]; then
		echo "10 s after lmdbio run was killed, the step still runs: $left"
		pkill -KILL -f "sleep $marker"
		return 1
	fi
}

check "srun --mpi=list offers pmix" t_mpi_list
check "srun -n 4 runs on the oversubscribed node" t_srun
check "lmdbio run -n 4 in salloc: 4 ranks, 1 node, local_size 4" t_run_in_allocation
check "LMDBIO_RANKS_PER_NODE=2 lmdbio run -n 4: 2 nodes, local_size 2" t_run_virtual_nodes
check "srun --mpi=pmix -n 4 lmdbio topology --json" t_srun_pmix
check "lmdbio run --dry-run in salloc prints srun --mpi=pmix" t_dry_run
check "srun --mpi=none: one-line error naming --mpi=pmix" t_srun_without_pmix
check "lmdbio run in salloc: a rank killed by SIGKILL is named, exit 1" t_run_rank_signal
check "lmdbio run in salloc killed by SIGKILL: its srun step ends" t_run_killed

echo "slurm-tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
