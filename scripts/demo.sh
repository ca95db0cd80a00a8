#!/usr/bin/env bash
# demo.sh: the data demo behind `make demo`. It checks the machine, shows the
# job's topology, writes an ImageNet-like LMDB, reads it on 4 ranks through
# lmdbio run with the default mode and with the plain-LMDB baseline (what
# Caffe-MPI does), and prints both throughputs and digests side by side.
#
# Environment: DEMO_DIR (default: a temporary directory, removed at the end),
# DEMO_RECORDS (default 5000), DEMO_SIZE (default 110KiB,20KiB), DEMO_RANKS (4).
set -euo pipefail
cd "$(dirname "$0")/.."
lmdbio=bin/lmdbio
records=${DEMO_RECORDS:-5000}
size=${DEMO_SIZE:-110KiB,20KiB}
ranks=${DEMO_RANKS:-4}
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}

if [ -n "${DEMO_DIR:-}" ]; then
	dir=$DEMO_DIR
	mkdir -p "$dir"
else
	dir=$(mktemp -d "${TMPDIR:-/var/tmp}/lmdbio-demo.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
fi

step() { printf '\n== %s\n' "$*"; }

step "lmdbio doctor"
"$lmdbio" doctor || true

step "lmdbio run -n $ranks -- lmdbio topology (2 virtual nodes)"
"$lmdbio" run -n "$ranks" -N 2 -- "$lmdbio" topology

step "lmdbio gen: $records records of $size (Caffe Datum, key order)"
"$lmdbio" gen --records "$records" --size "$size" --datum --overwrite --out "$dir/train_lmdb"
"$lmdbio" info "$dir/train_lmdb"
"$lmdbio" index "$dir/train_lmdb"

# Cold cache where we may drop it, so the runs read from storage.
drop_caches() {
	sync
	if [ -w /proc/sys/vm/drop_caches ]; then
		echo 1 >/proc/sys/vm/drop_caches
		echo "(page cache dropped: cold read)"
	else
		echo "(not root: page cache kept, this is a warm read)"
	fi
}

declare -A line rate
for mode in lmdb default; do
	step "lmdbio run -n $ranks -- lmdbio digest --mode $mode"
	drop_caches
	out=$("$lmdbio" run -n "$ranks" -- "$lmdbio" digest --json --mode "$mode" "$dir/train_lmdb")
	echo "$out"
	line[$mode]=$(echo "$out" | sed -E 's/.*"digest":"([0-9a-f]+)".*/\1/')
	rate[$mode]=$(echo "$out" | sed -E 's/.*"mb_per_s":([0-9.]+).*/\1/')
done

step "lmdbio run -n $ranks -- lmdbio-bench mpibench"
"$lmdbio" run -n "$ranks" -- bin/lmdbio-bench mpibench --size 16MiB --iters 5

step "result"
printf '%-10s %12s  %s\n' mode "MB/s" digest
for mode in lmdb default; do
	printf '%-10s %12.0f  %s\n' "$mode" "${rate[$mode]}" "${line[$mode]}"
done
if [ "${line[lmdb]}" != "${line[default]}" ]; then
	echo "demo: digests differ between modes" >&2
	exit 1
fi
awk -v a="${rate[default]}" -v b="${rate[lmdb]}" 'BEGIN { printf "default mode: %.1fx the plain-LMDB baseline on %s ranks; every record read exactly once (same digest)\n", a / b, '"$ranks"' }'
