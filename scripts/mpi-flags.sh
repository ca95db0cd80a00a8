#!/usr/bin/env bash
# mpi-flags.sh finds the MPI library to build lmdbio against, the way a
# cluster provides it, and prints what cgo needs for it. It tries, in order:
#   1. pkg-config modules: mpi (Debian's Open MPI), ompi-c and ompi (upstream,
#      Spack and module-provided Open MPI), mpich (MPICH and its derivatives);
#   2. the compiler wrapper $MPICC (default mpicc): --showme:compile and
#      --showme:link (Open MPI), else -show (MPICH, Intel MPI, MVAPICH).
# MPICC set in the environment names the MPI to use: its wrapper comes first.
#
#   scripts/mpi-flags.sh [--env] [TAGS]  shell assignments for eval: MPITAGS, and for the
#                                        mpiflags tag exported CGO_CFLAGS and CGO_LDFLAGS
#   scripts/mpi-flags.sh --cflags        the compile flags of the MPI found
#   scripts/mpi-flags.sh --libs          its link flags
#   scripts/mpi-flags.sh --which         how it was found, e.g. "pkg-config ompi-c"
#   scripts/mpi-flags.sh --family        openmpi or mpich
#
# With --env, TAGS are the build tags asked for (MPITAGS). Empty, the build
# keeps Go's default (#cgo pkg-config: mpi) where pkg-config knows "mpi", and
# uses the tag mpiflags (no #cgo pkg-config line; flags from the environment)
# elsewhere. mpich and nompi builds need nothing from here.
#
#   eval "$(scripts/mpi-flags.sh)" && go build -tags "$MPITAGS" ./cmd/lmdbio
#
# Environment: MPICC (the wrapper), PKG_CONFIG (pkg-config program; "false"
# skips pkg-config), CGO_CFLAGS and CGO_LDFLAGS (kept in front of MPI's).
set -euo pipefail

pkg_config=${PKG_CONFIG:-pkg-config}
mpicc=${MPICC:-mpicc}

how="" family="" cflags="" libs=""

# find_mpi sets how, family, cflags and libs, or fails when no MPI is found.
find_mpi() {
	if [ -n "${MPICC:-}" ] && wrapper; then
		return 0
	fi
	local mod
	for mod in mpi ompi-c ompi mpich; do
		if "$pkg_config" --exists "$mod" 2>/dev/null; then
			how="pkg-config $mod"
			cflags=$("$pkg_config" --cflags "$mod")
			libs=$("$pkg_config" --libs "$mod")
			family=openmpi
			[ "$mod" = mpich ] && family=mpich
			return 0
		fi
	done
	wrapper
}

# wrapper asks the compiler wrapper $mpicc for its flags.
wrapper() {
	if ! command -v "$mpicc" >/dev/null 2>&1; then
		return 1
	fi
	if cflags=$("$mpicc" --showme:compile 2>/dev/null) && libs=$("$mpicc" --showme:link 2>/dev/null); then
		how="$mpicc --showme" family=openmpi
		return 0
	fi
	local line
	line=$("$mpicc" -show 2>/dev/null) || return 1
	how="$mpicc -show" family=mpich
	split_show $line
}

# split_show sorts the words of a wrapper's whole command line (compiler
# first) into compile flags and link flags, leaving out the compiler and
# its optimisation and warning options.
split_show() {
	shift # the compiler
	cflags="" libs=""
	while [ $# -gt 0 ]; do
		case $1 in
		-I | -D | -U) cflags+=" $1 $2"; shift ;;
		-I* | -D* | -U*) cflags+=" $1" ;;
		-pthread) cflags+=" $1"; libs+=" $1" ;;
		-L | -l | -Xlinker) libs+=" $1 $2"; shift ;;
		-L* | -l* | -Wl,*) libs+=" $1" ;;
		*.so | *.a) libs+=" $1" ;;
		esac
		shift
	done
	cflags=${cflags# } libs=${libs# }
}

# quote prints its argument in single quotes for eval.
quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

missing() {
	echo "mpi-flags.sh: no MPI found: no pkg-config module mpi, ompi-c, ompi or mpich, and no $mpicc on PATH" >&2
	echo "mpi-flags.sh: load your MPI (e.g. module load openmpi), set PKG_CONFIG_PATH or MPICC, or run scripts/deps.sh" >&2
	exit 1
}

mode=--env
if [ $# -gt 0 ] && [[ $1 == --* ]]; then
	mode=$1
	shift
fi
case $mode in
--cflags) find_mpi || missing; echo "$cflags" ;;
--libs) find_mpi || missing; echo "$libs" ;;
--which) find_mpi || missing; echo "$how" ;;
--family) find_mpi || missing; echo "$family" ;;
--env)
	tags=${1:-}
	case " ${tags//,/ } " in
	*" mpich "* | *" nompi "*) echo "MPITAGS=$(quote "$tags")"; exit 0 ;;
	*" mpiflags "*) ;;
	*)
		if [ -z "$tags" ] && [ -z "${MPICC:-}" ] && "$pkg_config" --exists mpi 2>/dev/null; then
			echo "MPITAGS=''"
			exit 0
		fi
		tags="${tags:+$tags }mpiflags"
		;;
	esac
	find_mpi || missing
	echo "MPITAGS=$(quote "$tags")"
	echo "export CGO_CFLAGS=$(quote "${CGO_CFLAGS:--O2 -g} $cflags")"
	echo "export CGO_LDFLAGS=$(quote "${CGO_LDFLAGS:--O2 -g} $libs")"
	;;
-h | --help) sed -n '2,27p' "$0" ;;
*) echo "mpi-flags.sh: unknown option $mode" >&2; exit 2 ;;
esac
