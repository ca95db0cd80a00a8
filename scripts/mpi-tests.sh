#!/usr/bin/env bash
# mpi-tests.sh runs the multi-rank tests: it builds each package's test binary
# with `go test -c` and runs it under mpirun with 1, 2, 3 and 4 ranks, printing
# one PASS/FAIL line per (package, ranks). Exit status is non-zero if any run
# fails or hangs.
#
#   scripts/mpi-tests.sh                  OpenMPI (the default build)
#   MPITAGS=mpich scripts/mpi-tests.sh    MPICH (build tag mpich, mpiexec.mpich)
#
# Environment: MPITAGS (go build tags), MPI_TEST_RANKS (default "1 2 3 4"),
# MPI_TEST_TIMEOUT (seconds per run, default 120), GO (default go).
set -euo pipefail
cd "$(dirname "$0")/.."

# Packages with multi-rank tests. Add a package here when its tests start
# checking behaviour across ranks.
packages=(
	./mpi
)

GO=${GO:-go}
MPITAGS=${MPITAGS:-}
ranks=${MPI_TEST_RANKS:-1 2 3 4}
limit=${MPI_TEST_TIMEOUT:-120}

# Launcher for the MPI the binaries are built against.
case " ${MPITAGS//,/ } " in
*" mpich "*)
	# Hydra starts more ranks than cores without being asked.
	launcher=(mpiexec.mpich)
	;;
*)
	launcher=(mpirun --oversubscribe)
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

failed=0
for pkg in "${packages[@]}"; do
	bin="$bindir/$(echo "${pkg#./}" | tr / _).test"
	if ! "$GO" test -c -tags "$MPITAGS" -o "$bin" "$pkg"; then
		echo "FAIL $pkg: build"
		failed=1
		continue
	fi
	for n in $ranks; do
		log="$bindir/run.log"
		start=$SECONDS
		# The test binary runs in the package directory, as `go test` does.
		if (cd "$pkg" && timeout -k 10 "$limit" "${launcher[@]}" -np "$n" "$bin" -test.count=1) >"$log" 2>&1; then
			echo "PASS $pkg np=$n ($((SECONDS - start))s)"
		else
			rc=$?
			why="exit $rc"
			[ "$rc" -eq 124 ] && why="timed out after ${limit}s"
			echo "FAIL $pkg np=$n ($why); output:"
			sed 's/^/    /' "$log"
			failed=1
		fi
	done
done
exit "$failed"
