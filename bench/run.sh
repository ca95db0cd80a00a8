#!/usr/bin/env bash
# run.sh: the benchmark campaign behind bench/results/. It writes (or reuses)
# the reference dataset, runs `lmdbio bench` on local disk and on the emulated
# parallel file system, with the peers interleaved, the MLPerf-Storage-style
# resnet50 workload, and renders the report and plots.
#
#   bench/run.sh [OUTDIR]          full campaign (about 30 minutes here)
#   BENCH_QUICK=1 bench/run.sh     one round, fewer rank counts (a few minutes)
#
# Environment: BENCH_DATA (dataset directory, default
# /var/tmp/lmdbio-bench/imagenet20k: 20,000 Caffe Datum records of ~110 KB,
# 2.2 GB, written in key order), BENCH_RANKS (world size, default 8),
# BENCH_ROUNDS (default 3). Needs root for cold-cache runs (drop_caches) and
# for the FUSE mount.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench/results}
data=${BENCH_DATA:-/var/tmp/lmdbio-bench/imagenet20k}
ranks=${BENCH_RANKS:-8}
rounds=${BENCH_ROUNDS:-3}
rank_list=1,2,4,8
if [ -n "${BENCH_QUICK:-}" ]; then
	rounds=1
	rank_list=4,8
fi
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}

scripts/deps.sh --peers
make build >/dev/null
go build -o bin/pfsemu ./bench/pfsemu
mkdir -p "$out"
lmdbio=bin/lmdbio

if [ ! -e "$data/data.mdb" ]; then
	"$lmdbio" gen --records 20000 --size 110KiB,20KiB --datum --out "$data"
fi
"$lmdbio" index "$data"

# readahead_kb is the readahead of the disk that holds $1.
readahead_kb() {
	local dev
	dev=$(lsblk -no PKNAME "$(df --output=source "$1" | tail -1)" 2>/dev/null | head -1)
	[ -n "$dev" ] || dev=$(basename "$(df --output=source "$1" | tail -1)")
	cat "/sys/block/$dev/queue/read_ahead_kb" 2>/dev/null || echo unknown
}

machine() {
	printf '{"type":"machine","storage":"%s","cores":%d,"memory_gib":%d,"kernel":"%s","date":"%s","readahead_kb":"%s"}\n' \
		"$1" "$(nproc)" "$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576))" "$(uname -r)" \
		"$(date -u +%Y-%m-%dT%H:%MZ)" "$(readahead_kb "$data")"
}

bench() {
	"$lmdbio" run -n "$ranks" -- "$lmdbio" bench --json --rounds "$rounds" "$@"
}

echo "== local disk: stacked study, peers, ranks $rank_list" >&2
{
	machine local
	bench --ranks "$rank_list" --peers torch-readahead,torch-noreadahead,caffe "$data"
} >"$out/local.jsonl"

echo "== local disk: resnet50 workload (AU search, up to 24 emulated accelerators)" >&2
# Emulated accelerators sleep through their compute, so 24 of them fit on a
# small machine; one round, one cold epoch (later epochs would come from the
# page cache: the dataset is smaller than this machine's memory).
"$lmdbio" run -n 24 -- "$lmdbio" bench --json --rounds 1 --workload resnet50 --modes lmdb,default \
	--page-cache cold --ranks 8,10,12,14,16,20,24 "$data" >"$out/resnet50.jsonl"

echo "== emulated parallel file system" >&2
# Explicit reads reach the emulator at up to 1 MiB per request (direct-io),
# page faults of mmap readers go through a 128 KiB readahead, as on a
# Lustre or GPFS client.
mnt=$(mktemp -d)
stats=$(mktemp)
bin/pfsemu --direct-io --stats "$stats" --ready-file "$mnt.ready" "$(dirname "$data")" "$mnt" >"$out/pfsemu.log" 2>&1 &
pfs=$!
trap 'kill $pfs 2>/dev/null; wait $pfs 2>/dev/null; rm -rf "$mnt" "$mnt.ready" "$stats"' EXIT
for _ in $(seq 100); do [ -e "$mnt.ready" ] && break; sleep 0.1; done
[ -e "$mnt.ready" ] || { cat "$out/pfsemu.log" >&2; exit 1; }
{
	machine pfsemu
	bench --ranks "$ranks" --modes lmdb,lmm+dio+prov,default --page-cache cold \
		--peers torch-readahead,torch-noreadahead "$mnt/$(basename "$data")"
} >"$out/pfsemu.jsonl"
kill $pfs
wait $pfs || true
cp "$stats" "$out/pfsemu-stats.json"

echo "== report" >&2
go run ./bench/report -in "$out/local.jsonl:local" -in "$out/resnet50.jsonl:local" \
	-in "$out/pfsemu.jsonl:pfsemu" -out "$out"
echo "wrote $out/results.md and plots" >&2
