#!/usr/bin/env bash
# deps.sh installs the Debian packages lmdbio needs. It is idempotent: it asks
# dpkg what is already there and only calls apt-get for what is missing, so a
# second run takes a fraction of a second.
#
#   scripts/deps.sh            build + test packages (MPI, LMDB, HDF5, Slurm; h5py writes the HDF5 test files)
#   scripts/deps.sh --peers    also the Python peers used by bench/ (torch, py-lmdb, h5py)
#   scripts/deps.sh --mpich    also MPICH, to build and test against it
set -euo pipefail

core=(openmpi-bin libopenmpi-dev liblmdb-dev lmdb-utils libhdf5-dev pkg-config gcc make
      slurm-wlm munge fuse3 python3-h5py)
peers=(python3-torch python3-lmdb python3-h5py python3-mpi4py)
mpich=(mpich libmpich-dev)

want=("${core[@]}")
for arg in "$@"; do
	case "$arg" in
	--peers) want+=("${peers[@]}") ;;
	--mpich) want+=("${mpich[@]}") ;;
	-h | --help) sed -n '2,9p' "$0"; exit 0 ;;
	*) echo "deps.sh: unknown option $arg" >&2; exit 2 ;;
	esac
done

missing=()
for pkg in "${want[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$'; then
		missing+=("$pkg")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null; then
		echo "deps.sh: need root or sudo to install: ${missing[*]}" >&2
		exit 1
	fi
	sudo=(sudo)
fi

echo "deps.sh: installing ${missing[*]}" >&2
# Wait for another apt/dpkg run instead of failing on its lock.
apt_get=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600)
"${apt_get[@]}" update >/dev/null
"${apt_get[@]}" install -y "${missing[@]}" >/dev/null
echo "deps.sh: done" >&2
