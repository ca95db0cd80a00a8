#!/usr/bin/env bash
# mpi-tests.sh runs the multi-rank tests: it builds each package's test binary
# once with `go test -c` and runs it under mpirun for every line of the table
# below, printing one PASS/FAIL line per (package, ranks, environment). Exit
# status is non-zero if any run fails or hangs: a rank that exits non-zero
# makes mpirun exit non-zero, a hang is ended by the timeout, and a "FAIL"
# line in the output fails the run even if every rank exited 0. A run in
# which no test ran, or every test skipped (a fixture that could not be
# made, a test filter that matches nothing), fails too: it tested nothing.
#
#   scripts/mpi-tests.sh                     Open MPI (the default build)
#   MPITAGS=mpich scripts/mpi-tests.sh       MPICH (build tag mpich, mpiexec.mpich)
#   MPITAGS=mpiflags scripts/mpi-tests.sh    the MPI scripts/mpi-flags.sh finds
#
# Environment: MPITAGS (go build tags), MPI_TEST_RANKS (rank counts for every
# line, instead of the table's), MPI_TEST_ONLY (run only the lines whose
# package matches this regular expression), MPI_TEST_RUNS (lines to run
# instead of the table, one per line), MPI_TEST_TIMEOUT (seconds per run,
# default 120), GO (default go).
set -euo pipefail
cd "$(dirname "$0")/.."

# The runs, one per line: PACKAGE|RANKS|ENVIRONMENT|TEST REGEX.
#   RANKS        world sizes to run with, separated by spaces
#   ENVIRONMENT  VAR=value words set for every rank ("" for none)
#   TEST REGEX   -test.run for the binary ("" runs all of its tests)
# Add a line when a package's tests start checking behaviour across ranks.
# The loader lines cover every world size (1, 2, 4, 8) and every virtual
# node size (1, 2, 4), among them 8 ranks as 2 nodes of 4 and as 4 nodes of
# 2, and nodes of unequal size (5 ranks as 2+2+1), without running every
# combination on a small machine.
runs=(
	"./mpi|1 2 3 4||"
	"./internal/agreement|1 2 3 4||"
	"./pkg/topology|1 2 3 4||"
	"./pkg/topology|2 3 4|LMDBIO_RANKS_PER_NODE=2|"
	"./pkg/topology|3 4|LMDBIO_RANKS_PER_NODE=3|"
	"./internal/reader|1 2 3 4||^TestMPI"
	"./internal/exchange|1 2 3 4||^TestMPI"
	"./pkg/loader|1 2 4 8||^TestMPI"
	"./pkg/loader|2 4 8|LMDBIO_RANKS_PER_NODE=1|^TestMPI"
	"./pkg/loader|4 8|LMDBIO_RANKS_PER_NODE=2|^TestMPI"
	"./pkg/loader|8|LMDBIO_RANKS_PER_NODE=4|^TestMPI"
	"./pkg/loader|5|LMDBIO_RANKS_PER_NODE=2|^TestMPI"
)

if [ -n "${MPI_TEST_RUNS:-}" ]; then
	mapfile -t runs <<<"$MPI_TEST_RUNS"
fi

GO=${GO:-go}
only=${MPI_TEST_ONLY:-}
limit=${MPI_TEST_TIMEOUT:-120}
# The build tags and, for the mpiflags tag, the cgo flags of the MPI found.
eval "$(scripts/mpi-flags.sh --env "${MPITAGS:-}")"
family=openmpi
case " ${MPITAGS//,/ } " in
*" mpich "*) family=mpich ;;
*" mpiflags "*) family=$(scripts/mpi-flags.sh --family) ;;
esac

# Launcher for the MPI the binaries are built against, and how it passes a
# variable to every rank.
case $family in
mpich)
	# Hydra starts more ranks than cores without being asked.
	launcher=(mpiexec.mpich)
	command -v mpiexec.mpich >/dev/null || launcher=(mpiexec)
	pass_env() { printf -- '-genv\n%s\n%s\n' "${1%%=*}" "${1#*=}"; }
	;;
*)
	launcher=(mpirun --oversubscribe)
	pass_env() { printf -- '-x\n%s\n' "$1"; }
	# OpenMPI refuses to run as root unless told it is on purpose (containers, CI).
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	# Many containers forbid the cross-memory attach (CMA, process_vm_readv)
	# that the vader shared-memory transport uses for single-copy transfers;
	# OpenMPI then prints a warning per rank and run, burying the results.
	# Copy-in/copy-out through shared memory works everywhere.
	export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
	;;
esac

bindir=$(mktemp -d)
trap 'rm -rf "$bindir"' EXIT

# build makes a package's test binary once and sets bin to its path; it
# fails when the build fails.
declare -A built=()
build() {
	local pkg=$1
	bin="$bindir/$(echo "${pkg#./}" | tr / _).test"
	if [ -z "${built[$pkg]:-}" ]; then
		"$GO" test -c -tags "$MPITAGS" -o "$bin" "$pkg" || return 1
		built[$pkg]=1
	fi
}

failed=0
total_start=$SECONDS
for line in "${runs[@]}"; do
	IFS='|' read -r pkg ranks envs regex <<<"$line"
	if [ -n "$only" ] && ! [[ $pkg =~ $only ]]; then
		continue
	fi
	ranks=${MPI_TEST_RANKS:-$ranks}
	if ! build "$pkg"; then
		echo "FAIL $pkg: build"
		failed=1
		continue
	fi
	args=(-test.count=1 -test.v)
	[ -n "$regex" ] && args+=(-test.run "$regex")
	envargs=()
	for kv in $envs; do
		while IFS= read -r word; do envargs+=("$word"); done < <(pass_env "$kv")
	done
	label=${envs:+ $envs}
	for n in $ranks; do
		log="$bindir/run.log"
		start=$SECONDS
		# The test binary runs in the package directory, as `go test` does.
		# The variables are set for mpirun too, so that ranks it starts
		# locally inherit them whatever the launcher forwards.
		rc=0
		# $envs is split on purpose: it holds VAR=value words for env.
		# shellcheck disable=SC2086
		(cd "$pkg" && env $envs timeout -k 10 "$limit" "${launcher[@]}" "${envargs[@]}" -np "$n" "$bin" "${args[@]}") >"$log" 2>&1 || rc=$?
		# Top-level tests by name, over all ranks: those that passed, and
		# those that were skipped and passed nowhere.
		read -r passed skipped < <(awk '/^--- PASS: / {p[$3]} /^--- SKIP: / {s[$3]}
			END {np = 0; ns = 0; for (t in p) np++; for (t in s) if (!(t in p)) ns++; print np, ns}' "$log")
		if [ "$rc" -eq 0 ] && [ "$passed" -gt 0 ] && ! grep -q -e '^--- FAIL' -e '^FAIL' "$log"; then
			echo "PASS $pkg np=$n$label ($passed passed, $skipped skipped, $((SECONDS - start))s)"
		else
			case $rc in
			0) why="a test failed" ;;
			124 | 137) why="timed out after ${limit}s" ;;
			*) why="exit $rc, $((SECONDS - start))s" ;;
			esac
			if [ "$rc" -eq 0 ] && [ "$passed" -eq 0 ] && ! grep -q -e '^--- FAIL' -e '^FAIL' "$log"; then
				why="no test ran"
				[ "$skipped" -gt 0 ] && why="every test skipped"
			fi
			echo "FAIL $pkg np=$n$label ($why); output:"
			sed 's/^/    /' "$log"
			failed=1
		fi
	done
done
echo "mpi-tests: $((SECONDS - total_start))s"
exit "$failed"
