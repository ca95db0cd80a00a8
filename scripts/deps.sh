#!/usr/bin/env bash
# deps.sh makes sure what lmdbio needs is present, and installs what is
# missing. It checks each need by what it is, not by a package manager's
# records: a pkg-config module, a command, a Python module, so an
# MPI loaded with `module load`, a Spack install or a source build counts.
# Only what is missing is installed, with apt-get where there is one (root
# or sudo then needed); elsewhere it names what is missing and exits 1.
# With nothing missing it changes nothing, needs no root, and takes a
# fraction of a second.
#
#   scripts/deps.sh            what building and running lmdbio needs (make build, make demo)
#   scripts/deps.sh --test     also what the tests need (make test)
#   scripts/deps.sh --slurm    also Slurm and munge, for the Slurm tests
#   scripts/deps.sh --peers    also the Python peers used by bench/ (torch, py-lmdb, h5py, mpi4py)
#   scripts/deps.sh --mpich    also MPICH, to build and test against it
#   scripts/deps.sh --check    only say what is missing (exit 1 if anything is)
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-/usr/bin/python3}
command -v "$python" >/dev/null 2>&1 || python=python3

have() { command -v "$1" >/dev/null 2>&1; }
pc() { have pkg-config && pkg-config --exists "$@" 2>/dev/null; }
pymod() { "$python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$1') is None)" 2>/dev/null; }
mpi() { PKG_CONFIG=${PKG_CONFIG:-pkg-config} scripts/mpi-flags.sh --which >/dev/null 2>&1; }
mpirun() { have mpirun || have mpiexec; }

# The needs, one per line: what | how it is checked | Debian packages.
build=(
	"C compiler|have cc|gcc"
	"pkg-config|have pkg-config|pkg-config"
	"MPI library and headers (pkg-config mpi, ompi-c, ompi or mpich, or mpicc)|mpi|libopenmpi-dev"
	"MPI launcher (mpirun or mpiexec)|mpirun|openmpi-bin"
	"HDF5 library and headers (pkg-config hdf5)|pc hdf5|libhdf5-dev"
	"libjpeg-turbo's TurboJPEG library and headers (pkg-config libturbojpeg, the prep stage's JPEG decoder)|pc libturbojpeg|libturbojpeg0-dev"
)
test=(
	"make|have make|make"
	"LMDB tools (mdb_load)|have mdb_load|lmdb-utils"
	"Python 3|have $python|python3"
	"py-lmdb (writes the loader's test datasets with liblmdb)|pymod lmdb|python3-lmdb"
	"FUSE 3 (fusermount3, for the file-system emulator's tests)|have fusermount3|fuse3"
	"h5py (writes the HDF5 test files with libhdf5)|pymod h5py|python3-h5py"
	"C++ compiler (the Caffe-MPI example)|have g++|g++"
	"protoc and libprotobuf (the Caffe-MPI example's Datum)|have protoc && pc protobuf|protobuf-compiler libprotobuf-dev"
	"Pillow (the prep tests' reference decode and resize)|pymod PIL|python3-pil"
	"torchvision (the prep tests' reference transforms)|pymod torchvision|python3-torchvision"
	"scikit-learn (its sample photographs, the prep tests' images)|pymod sklearn|python3-sklearn"
)
slurm=(
	"Slurm (slurmctld, slurmd, srun)|have slurmctld && have slurmd && have srun|slurm-wlm"
	"munge|have munged|munge"
)
peers=(
	"PyTorch|pymod torch|python3-torch"
	"py-lmdb|pymod lmdb|python3-lmdb"
	"h5py|pymod h5py|python3-h5py"
	"mpi4py|pymod mpi4py|python3-mpi4py"
)
mpich=(
	"MPICH (pkg-config mpich, mpiexec.mpich)|pc mpich && have mpiexec.mpich|mpich libmpich-dev"
)

want=("${build[@]}")
check_only=0
for arg in "$@"; do
	case "$arg" in
	--test) want+=("${test[@]}") ;;
	--slurm) want+=("${slurm[@]}") ;;
	--peers) want+=("${peers[@]}") ;;
	--mpich) want+=("${mpich[@]}") ;;
	--check) check_only=1 ;;
	-h | --help) sed -n '2,17p' "$0"; exit 0 ;;
	*) echo "deps.sh: unknown option $arg" >&2; exit 2 ;;
	esac
done

# missing lists the needs whose check fails, as "what|packages" lines.
missing() {
	local need what check pkgs
	for need in "${want[@]}"; do
		IFS='|' read -r what check pkgs <<<"$need"
		if ! eval "$check"; then
			echo "$what|$pkgs"
		fi
	done
}

mapfile -t lack < <(missing)
if [ ${#lack[@]} -eq 0 ]; then
	exit 0
fi
whats=() pkgs=()
for l in "${lack[@]}"; do
	whats+=("${l%%|*}")
	read -ra p <<<"${l#*|}"
	pkgs+=("${p[@]}")
done
say_missing() {
	echo "deps.sh: missing:" >&2
	printf '  - %s\n' "${whats[@]}" >&2
}

if [ $check_only = 1 ]; then
	say_missing
	exit 1
fi
if ! have apt-get; then
	say_missing
	echo "deps.sh: no apt-get here: install them with your package manager, or load them (module load ...)," >&2
	echo "deps.sh: then run this again. Debian names them: ${pkgs[*]}" >&2
	exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
	if ! have sudo; then
		say_missing
		echo "deps.sh: need root or sudo to install: ${pkgs[*]}" >&2
		exit 1
	fi
	sudo=(sudo)
fi

echo "deps.sh: installing ${pkgs[*]}" >&2
# Wait for another apt/dpkg run instead of failing on its lock.
apt_get=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600)
"${apt_get[@]}" update >/dev/null
"${apt_get[@]}" install -y "${pkgs[@]}" >/dev/null
mapfile -t lack < <(missing)
if [ ${#lack[@]} -gt 0 ]; then
	whats=()
	for l in "${lack[@]}"; do whats+=("${l%%|*}"); done
	echo "deps.sh: installed, but still missing:" >&2
	printf '  - %s\n' "${whats[@]}" >&2
	exit 1
fi
echo "deps.sh: done" >&2
