#!/usr/bin/env bash
# hdf5-flags.sh prints, for eval before `go build`, the cgo link flags that
# link libhdf5 into a program from its static archive when one is installed
# beside the shared library (Debian's libhdf5-dev ships both), and nothing
# otherwise: the program then links the shared library.
#
#   eval "$(scripts/hdf5-flags.sh DIR)" && go build ./cmd/lmdbio
#
# Why: the shared libhdf5 of distributions loads 31 more libraries at every
# process start (docs/decisions/0001-static-libhdf5.md).
#
# DIR is a directory of the build's own where -lhdf5 finds the archives
# before the shared libraries. The libraries the archive needs come from its
# libhdf5.settings; those lmdbio's objects do not use are left out. Only
# executables: a shared library (the C API) needs position-independent code,
# which the archive is not.
#
# Environment: HDF5_STATIC=no links the shared library; PKG_CONFIG (the
# pkg-config program that knows where hdf5 is); CGO_LDFLAGS is kept in front.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
[ "${HDF5_STATIC:-yes}" != no ] || exit 0

libs=$("${PKG_CONFIG:-pkg-config}" --libs-only-L hdf5 2>/dev/null) || exit 0
# shellcheck disable=SC2086 # one -L... word per line
libdir=$(printf '%s\n' $libs | sed -n 's/^-L//p' | head -1)
[ -n "$libdir" ] || exit 0
archive=$libdir/libhdf5.a
settings=$libdir/libhdf5.settings
[ -f "$archive" ] && [ -f "$settings" ] || exit 0
extra=$(sed -n 's/^ *Extra libraries: *//p' "$settings")

# cgo links -lhdf5 and -lhdf5_hl wherever the packages that use them put
# them, in no order an archive can rely on. In DIR both names are one
# linker script: the two archives as a group, scanned until nothing more
# resolves, and the libraries they need as needed.
mkdir -p "$dir"
hl=
[ ! -f "$libdir/libhdf5_hl.a" ] || hl=$libdir/libhdf5_hl.a
script="GROUP ( $hl $archive AS_NEEDED ( $extra ) )"
for name in libhdf5.a libhdf5_hl.a; do
	printf '%s\n' "$script" >"$dir/$name"
done
printf 'export CGO_LDFLAGS=%q\n' "${CGO_LDFLAGS:--O2 -g} -L$dir"
