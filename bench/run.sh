#!/usr/bin/env bash
# run.sh: the benchmark campaign behind bench/results/. Every part writes
# `lmdbio-bench bench --json` lines (or model lines) into the output directory;
# the report part turns whatever is there into results.md and plots.
#
#   bench/run.sh [-o DIR] [PART...]        default: all
#
# Parts (times are estimates for the full size on a 2-core machine):
#   local    local disk, 4 and 8 learners on one node, cold and warm: every
#            stacked mode (default vs lmdb), the peers (PyTorch readahead on
#            and off, Caffe-style); default and lmdb alone, 40 rounds
#            paired by round, cold, then warm; the ResNet-50 AU search
#                                                                    ~22 min
#   pfs      one emulated-PFS client (pfsemu --direct-io), 8 ranks, cold
#                                                                    ~3 min
#   python   the Python binding in a PyTorch loop vs the Go learners and
#            DataLoader, 4 learners, cold, local disk and one emulated-PFS
#            client                                                  ~4 min
#   hosts    1, 2, 4, 8 emulated hosts x 4 learners, each host its own
#            pfsemu client, 4 shared storage servers; lmdb and default,
#            Caffe-style, PyTorch DDP (a process per rank) and one
#            PyTorch process, cold, equal work                       ~12 min
#   stagger  the stagger study: 2, 4, 8 emulated hosts, coal vs default
#            with stagger 1, 2, 4                                     ~4 min
#   pagerpc  8 emulated hosts as a Lustre client before 2.14 reads an
#            mmap: every page fault a request of its own (flash-like
#            servers); lmdb and default, Caffe-style, PyTorch DDP     ~5 min
#   shuffle  3 epochs, 4 virtual nodes x 2, cold start, 5 rounds: none
#            (and lmdb), local, chunk, global with locality on and off,
#            PyTorch with shuffle; on the DB in key order and a copy in
#            random key order; the shuffle-quality table             ~9 min
#   amp      read amplification and mean read size of every order's
#            first epoch, 1, 2, 4, 8 virtual nodes, key and random
#            order (lmdbio digest)                                  ~4 min
#   hdf5     HDF5 contiguous and chunked+gzip, cold, local disk and one
#            emulated host: default vs PyTorch over h5py, shuffle on/off;
#            the contiguous file against an LMDB of the same records'
#            count and size, 40 cold pairs in alternating order; the
#            deflate decoders' speed                                 ~12 min
#   model    lmdbio-bench model fit on the hosts runs (1, 2, 4 hosts; 8 held out)
#            and model predict --nodes 1..256 --ranks-per-node 36    ~1 min
#   report   results.md and the plots from every part's lines
#   all      every part above, in that order (about 70 minutes; the datasets
#            are written once, ~5 min, and reused)
#
# Environment: BENCH_DATA (the reference LMDB, default
# /var/tmp/lmdbio-bench/imagenet20k: 20,000 Caffe Datum records of ~110 KB,
# 2.2 GB, in key order; the other datasets are written beside it),
# BENCH_ROUNDS (default 3), BENCH_SLOTS (learners per emulated host, 4),
# BENCH_SHM_HUGE=1 (the emulated hosts' segments on huge pages: multihost.sh
# --shm-huge; the pool, vm.nr_hugepages, must hold every host's),
# BENCH_SMOKE=1 (a tiny dataset, one round, 1 learner per host, output in
# /tmp/lmdbio-bench-smoke unless -o: checks every part end to end in a few
# minutes; its figures mean nothing). Needs root: cold runs drop the page
# cache, the emulator mounts FUSE, emulated hosts need namespaces.
set -euo pipefail
cd "$(dirname "$0")/.."

out=
while getopts o: opt; do
	case $opt in
	o) out=$OPTARG ;;
	*) echo "usage: bench/run.sh [-o DIR] [local|pfs|python|hosts|stagger|shuffle|amp|hdf5|model|report|all ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(all)
for p in "${parts[@]}"; do
	case $p in
	local | pfs | python | hosts | stagger | pagerpc | shuffle | amp | hdf5 | model | report) ;;
	all) parts=(local pfs python hosts stagger pagerpc shuffle amp hdf5 model report) && break ;;
	*) echo "bench/run.sh: unknown part $p: want local, pfs, python, hosts, stagger, pagerpc, shuffle, amp, hdf5, model, report or all" >&2; exit 2 ;;
	esac
done

smoke=${BENCH_SMOKE:-}
rounds=${BENCH_ROUNDS:-3}
pair_rounds=40
slots=${BENCH_SLOTS:-4}
data=${BENCH_DATA:-/var/tmp/lmdbio-bench/imagenet20k}
records=20000 size=110KiB,20KiB
h5records=10000 h5size=3x160x160 h5chunk=8
hosts_list=(1 2 4 8) stagger_hosts=(2 4 8)
if [ -n "$smoke" ]; then
	data=${BENCH_DATA:-/var/tmp/lmdbio-bench-smoke/db}
	out=${out:-/tmp/lmdbio-bench-smoke}
	rounds=1 pair_rounds=2 slots=${BENCH_SLOTS:-1}
	records=2000 size=4KiB,1KiB # more records than one global batch of 8 learners
	h5records=400 h5size=3x32x32 h5chunk=8
fi
out=${out:-bench/results}
dir=$(dirname "$data")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

scripts/deps.sh --peers
make build lib >/dev/null
mkdir -p "$out" "$dir"
lmdbio=bin/lmdbio
kit=bin/lmdbio-bench

# single_copy prints how Open MPI's shared-memory transport should move
# large messages: with one copy (cma, cross-memory attach) where the kernel
# lets ranks read each other's memory, else through shared buffers with two
# (none; a container without ptrace rights refuses cma, and Open MPI then
# prints a warning per rank). The exchange between virtual nodes is such
# messages; a 2-rank exchange that runs clean with cma decides.
single_copy() {
	local tmp how=none
	tmp=$(mktemp -d)
	if "$lmdbio" gen --records 64 --size 64KiB,0 --out "$tmp/db" >/dev/null 2>&1 &&
		OMPI_MCA_btl_vader_single_copy_mechanism=cma LMDBIO_RANKS_PER_NODE=1 \
			"$lmdbio" run -n 2 -- "$lmdbio" digest --shuffle global --batch 4 "$tmp/db" >/dev/null 2>"$tmp/err" &&
		[ ! -s "$tmp/err" ]; then
		how=cma
	fi
	rm -rf "$tmp"
	echo "$how"
}
: "${OMPI_MCA_btl_vader_single_copy_mechanism:=$(single_copy)}"
export OMPI_MCA_btl_vader_single_copy_mechanism
echo "bench/run.sh: Open MPI single copy: $OMPI_MCA_btl_vader_single_copy_mechanism" >&2
# The peers' figures count only if they read every record once: check them
# on a small dataset before the hour of runs.
bench/peers/selftest.sh >"$out/peers-selftest.log" 2>&1 ||
	{ echo "bench/run.sh: a peer baseline is broken (see $out/peers-selftest.log)" >&2; exit 1; }

# The emulated PFS of the multi-host parts: each host's client 1 GB/s and
# 0.5 ms round trip, 1 MiB readahead, 4 storage servers shared by all
# hosts, each 1 ms a request plus its bytes at 400 MB/s, about 1.15 GB/s
# together in 1 MiB requests: from 2 hosts on the servers bound the job,
# as a file system shared by many clients is bound by its servers, and not
# this machine's disk and cores (docs/pfsemu.md, "The emulated parallel
# file system").
pfs_opts='--latency 500us --bandwidth 1GB/s --readahead 1MiB --servers 4 --server-latency 1ms --server-bandwidth 400MB/s'
pfs_mnt=/mnt/lmdbio-pfs
# Probes of the emulated PFS: fewer than the default, each reads the file.
pfs_probes=buffered:4x2:4MiB,direct:1x8:4MiB,direct:4x2:16MiB

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

# bench NRANKS ARGS... runs lmdbio-bench bench as an MPI job on this host.
bench() {
	local n=$1
	shift
	"$lmdbio" run -n "$n" -- "$kit" bench --json --rounds "$rounds" "$@"
}

# on_hosts HOSTS ARGS... runs lmdbio-bench bench on HOSTS emulated hosts of
# $slots learners, each host its own pfsemu client of $dir at $pfs_mnt; the
# emulators' counters go to $out/pfs-stats-$tag-HOSTS.
on_hosts() {
	local h=$1 tag=$2
	shift 2
	scripts/multihost.sh --hosts "$h" --slots "$slots" ${BENCH_SHM_HUGE:+--shm-huge} --pfs "$dir" --pfs-mount "$pfs_mnt" \
		--pfs-stats "$out/pfs-stats-$tag-$h" --pfs-opts "$pfs_opts" -- \
		"$kit" bench --json --rounds "$rounds" "$@"
}

# timed NAME CMD... runs a part and says how long it took.
timed() {
	local name=$1 t0=$SECONDS
	shift
	echo "== $name" >&2
	"$@"
	echo "== $name: $((SECONDS - t0)) s" >&2
}

# dataset writes the reference LMDB (or keeps it) and its index.
dataset() {
	[ -e "$data/data.mdb" ] || "$lmdbio" gen --records "$records" --size "$size" --datum --out "$data" >/dev/null
	"$lmdbio" index "$data" >/dev/null
}

part_local() {
	dataset
	{
		machine local
		bench 8 --ranks 4,8 --peers torch-readahead,torch-noreadahead,caffe "$data"
	} >"$out/local.jsonl"
	# Cold, this disk swings up to twofold from one round to the next, more
	# than default and lmdb differ: the two alone, interleaved over many
	# rounds, and the ratio paired by round with its 95% interval decides.
	{
		machine local-pairs
		"$lmdbio" run -n 8 -- "$kit" bench --json --rounds "$pair_rounds" --modes lmdb,default --ranks 4,8 \
			--page-cache cold --consumer touch --limit-probes buffered:8x2:4MiB,buffered:4x2:4MiB,direct:1x1:16MiB "$data"
	} >"$out/local-pairs.jsonl"
	# Warm, the same: the page cache serves a round in about 0.15 s, so a
	# few milliseconds of start-up move one round's ratio by several percent.
	{
		machine local-pairs
		"$lmdbio" run -n 8 -- "$kit" bench --json --rounds "$pair_rounds" --modes lmdb,default --ranks 4,8 \
			--page-cache warm --consumer touch --limit-probes buffered:8x2:4MiB,buffered:4x2:4MiB "$data"
	} >"$out/local-pairs-warm.jsonl"
	# Emulated accelerators sleep through their compute, so 24 of them fit
	# on a small machine; one round, one cold epoch (later epochs would come
	# from the page cache: the dataset is smaller than this machine's memory).
	local ranks=8,10,12,14,16,20,24 n=24
	[ -z "$smoke" ] || ranks=2,4 n=4
	"$lmdbio" run -n "$n" -- "$kit" bench --json --rounds 1 --workload resnet50 --modes lmdb,default \
		--consumer touch --page-cache cold --ranks "$ranks" "$data" >"$out/resnet50.jsonl"
}

# on_pfsemu LABEL NRANKS ARGS... runs lmdbio-bench bench on NRANKS ranks of this
# host through one pfsemu client of $dir, every open uncached
# (--direct-io): explicit reads reach the emulator at up to 1 MiB, mmap page
# faults through a 128 KiB readahead, as on a Lustre or GPFS client. The
# dataset path comes last; the lines go to $out/LABEL.jsonl, the emulator's
# log to $out/LABEL.log and its counters to $out/LABEL-stats.json.
on_pfsemu() {
	local label=$1 n=$2 mnt stats pfs rc=0
	shift 2
	mnt=$(mktemp -d) stats=$(mktemp)
	bin/pfsemu --direct-io --stats "$stats" --ready-file "$mnt.ready" "$dir" "$mnt" >"$out/$label.log" 2>&1 &
	pfs=$!
	for _ in $(seq 100); do [ -e "$mnt.ready" ] && break; sleep 0.1; done
	if [ -e "$mnt.ready" ]; then
		{
			machine "$label"
			bench "$n" "$@" "$mnt/$(basename "$data")"
		} >"$out/$label.jsonl" || rc=1
	else
		rc=1
	fi
	kill "$pfs" 2>/dev/null || true
	wait "$pfs" 2>/dev/null || true
	cp "$stats" "$out/$label-stats.json" 2>/dev/null || true
	rm -rf "$mnt" "$mnt.ready" "$stats"
	[ $rc = 0 ] || echo "bench/run.sh: $label failed (log: $out/$label.log)" >&2
	return $rc
}

# part_pfs: the stacked modes and the DataLoader through one pfsemu client.
part_pfs() {
	dataset
	on_pfsemu pfsemu 8 --modes lmdb,lmm+dio+prov,default --page-cache cold --consumer touch \
		--limit-probes "$pfs_probes" --peers torch-readahead
}

# part_python: the Python binding in a PyTorch loop (4 learners through
# lmdbio run --agent) beside the Go learners and PyTorch's DataLoader (8
# workers), on local disk and through one pfsemu client.
part_python() {
	dataset
	{
		machine python-local
		bench 4 --modes default --page-cache cold --consumer touch --peers torch-lmdbio,torch-readahead "$data"
	} >"$out/python-local.jsonl"
	on_pfsemu python-pfs 4 --modes default --page-cache cold --consumer touch --limit-probes "$pfs_probes" \
		--peers torch-lmdbio,torch-readahead
}

part_hosts() {
	dataset
	local h
	for h in "${hosts_list[@]}"; do
		{
			machine "hosts-$h"
			on_hosts "$h" hosts --modes lmdb,default --page-cache cold --consumer touch --limit-probes "$pfs_probes" \
				--peers caffe,torch-ddp,torch-readahead "$pfs_mnt/$(basename "$data")"
		} >"$out/hosts-$h.jsonl"
	done
}

part_stagger() {
	dataset
	local h
	for h in "${stagger_hosts[@]}"; do
		{
			machine "stagger-$h"
			on_hosts "$h" stagger --modes lmm+dio+prov+coal,default --stagger 1,2,4 --page-cache cold --consumer touch \
				--limit-probes none "$pfs_mnt/$(basename "$data")"
		} >"$out/stagger-$h.jsonl"
	done
}

# part_pagerpc: the hosts part's largest count of hosts, with the mounts'
# readahead at one page: a Lustre client before 2.14 sent an mmap reader's
# page faults as RPCs of one page (LU-13669: 95% of them), so every fault of
# a Caffe-style or PyTorch reader (both read LMDB through liblmdb's mmap) is
# a request of its own; the servers flash-like (0.2 ms a request, 16 at
# once each), so that a fault's wait stays near the 0.5 ms measured there
# on flash; 290 MB/s each, so that together they serve what the hosts
# part's do (about 1.15 GB/s in 1 MiB requests). lmdbio's node readers read
# with O_DIRECT, in large requests.
part_pagerpc() {
	dataset
	local h=${hosts_list[-1]}
	local pfs_opts='--latency 500us --bandwidth 1GB/s --readahead 4KiB --servers 4 --server-latency 200us --server-threads 16 --server-bandwidth 290MB/s'
	{
		machine "pagerpc-$h"
		on_hosts "$h" pagerpc --modes lmdb,default --page-cache cold --consumer touch --limit-probes "$pfs_probes" \
			--peers caffe,torch-ddp "$pfs_mnt/$(basename "$data")"
	} >"$out/pagerpc-$h.jsonl"
}

# random_dataset writes (or keeps) a copy of the reference LMDB's records
# in random key order, and its index.
random=$dir/$(basename "$data")-random
random_dataset() {
	[ -e "$random/data.mdb" ] ||
		"$lmdbio" gen --records "$records" --size "$size" --datum --order random --out "$random" >/dev/null
	"$lmdbio" index "$random" >/dev/null
}

# part_shuffle: 4 virtual nodes of 2 learners, 3 epochs from a cold page
# cache, on the DB in key order and on a copy written in random key order.
part_shuffle() {
	dataset
	random_dataset
	local db label shuffle_rounds=$rounds
	# A cached epoch lasts tens of milliseconds, where one round's hiccup
	# moves a median of 3: at least 5 rounds (not in smoke runs).
	[ -n "$smoke" ] || shuffle_rounds=$((rounds > 5 ? rounds : 5))
	for db in "$data" "$random"; do
		label=shuffle
		[ "$db" = "$data" ] || label=shuffle-random
		{
			machine "$label"
			LMDBIO_RANKS_PER_NODE=2 bench 8 --modes lmdb,default --shuffle none,local,chunk,global --locality on,off \
				--epochs 3 --page-cache cold --consumer touch --limit-probes buffered:4x2:4MiB,direct:4x2:16MiB \
				--peers torch-readahead --rounds "$shuffle_rounds" "$db"
		} >"$out/$label.jsonl"
	done
	local rec_bytes
	rec_bytes=$(($(stat -c %s "$data/data.mdb") / records))
	"$kit" shuffle-quality --json --records "$records" --record-bytes "$rec_bytes" --nodes 4 --ranks-per-node 2 \
		--epochs 3 >"$out/shuffle-quality.jsonl"
}

# part_amp: the read amplification and the mean read size of every order's
# first epoch, 8 learners on 1, 2, 4 and 8 virtual nodes, on the DB in key
# order and in random key order (lmdbio digest's per-epoch figures; the
# read path that multi-epoch runs use: --views off).
part_amp() {
	dataset
	random_dataset
	local db nodes sh
	for db in "$data" "$random"; do
		for nodes in 1 2 4 8; do
			for sh in none local chunk global; do
				LMDBIO_RANKS_PER_NODE=$((8 / nodes)) "$lmdbio" run -n 8 -- "$lmdbio" digest --json --views off \
					--shuffle "$sh" "$db" |
					sed "s|^{|{\"db\":\"$(basename "$db")\",\"file_bytes\":$(stat -c %s "$db/data.mdb"),|"
			done
		done
	done >"$out/amplification.jsonl"
	python3 - "$out/amplification.jsonl" >"$out/amplification.md" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print("# Read amplification, first epoch\n")
print("8 learners; storage bytes ÷ data file bytes, and the mean size of a read from storage.\n")
print("| database | nodes | shuffle | amplification | mean read MiB | exchanged GB |")
print("| --- | ---: | --- | ---: | ---: | ---: |")
for r in rows:
    reads = max(r["storage_reads"], 1)
    print(f"| {r['db']} | {r['nodes']} | {r['shuffle']} | {r['storage_bytes'] / r['file_bytes']:.3f} "
          f"| {r['storage_bytes'] / reads / 2**20:.1f} | {r['exchange_bytes'] / 1e9:.3f} |")
PY
}

# part_hdf5: contiguous and chunked+gzip files, cold, on local disk and
# through one emulated host's pfsemu client.
part_hdf5() {
	local contig=$dir/images-contiguous.h5 gzip=$dir/images-gzip.h5 f kind
	[ -e "$contig" ] || "$lmdbio" gen --format hdf5 --records "$h5records" --size "$h5size" --out "$contig" >/dev/null
	[ -e "$gzip" ] || "$lmdbio" gen --format hdf5 --records "$h5records" --size "$h5size" --chunk "$h5chunk" --gzip 4 \
		--shuffle-filter --out "$gzip" >/dev/null
	# The same number of records of the same size in an LMDB, for the
	# contiguous file's comparison with LMDB through lmdbio.
	local twin=$dir/images-lmdb row
	row=$(($(echo "$h5size" | tr x '*')))
	[ -e "$twin/data.mdb" ] || "$lmdbio" gen --records "$h5records" --size "$row,0" --out "$twin" >/dev/null
	"$lmdbio" index "$twin" >/dev/null
	hdf5_pairs "$twin" "$contig"
	# The deflate decoder of chunks: the standard library's and klauspost's
	# (filter.go uses the faster), on HDF5 chunks of pixels and of a walk.
	local benchtime=2s
	[ -z "$smoke" ] || benchtime=10x
	go test -run '^$' -bench Inflate -benchtime "$benchtime" ./internal/hdf5 >"$out/inflate.txt"
	# HDF5 takes flock on open, which FUSE mounts refuse: users turn it off.
	export HDF5_USE_FILE_LOCKING=FALSE
	for f in "$contig" "$gzip"; do
		kind=contiguous
		[ "$f" = "$contig" ] || kind=gzip
		{
			machine "hdf5-$kind-local"
			bench 8 --page-cache cold --consumer touch,sha256 --peers torch-h5py,torch-h5py-noshuffle "$f"
		} >"$out/hdf5-$kind-local.jsonl"
		{
			machine "hdf5-$kind-pfs"
			on_hosts 1 "hdf5-$kind" --page-cache cold --consumer touch --limit-probes "$pfs_probes" \
				--peers torch-h5py,torch-h5py-noshuffle "$pfs_mnt/$(basename "$f")"
		} >"$out/hdf5-$kind-pfs.jsonl"
	done
}

# hdf5_pairs TWIN CONTIG measures the contiguous file against the same
# records in an LMDB, through lmdbio, side by side: one cold round of each
# at a time, the two in alternating order (ABBA), so that the disk's drift
# falls on both alike. Each line carries its pair's number as its round;
# hdf5-pairs.md pairs them.
hdf5_pairs() {
	local i f kind pair
	for kind in lmdb contiguous; do
		machine "hdf5-pairs-$kind" >"$out/hdf5-pairs-$kind.jsonl"
	done
	for ((i = 1; i <= pair_rounds; i++)); do
		pair=("$1" "$2")
		((i % 2)) || pair=("$2" "$1")
		for f in "${pair[@]}"; do
			kind=contiguous
			[ "$f" != "$1" ] || kind=lmdb
			"$lmdbio" run -n 8 -- "$kit" bench --json --rounds 1 --modes default --page-cache cold \
				--consumer touch,sha256 --limit-probes none "$f" |
				grep -E '^\{"type":"(result|epoch)"' | sed "s/\"round\":1,/\"round\":$i,/" >>"$out/hdf5-pairs-$kind.jsonl"
		done
	done
	{
		echo "# Contiguous HDF5 and the same records in LMDB, side by side"
		echo
		echo "8 learners, default mode, cold, one round of each at a time in alternating order."
		echo "The ratio is the geometric mean of the pairs' HDF5 ÷ LMDB, with its 95% interval (Student's t)."
		echo
		go run ./bench/report -paired -in "$out/hdf5-pairs-contiguous.jsonl:HDF5" -in "$out/hdf5-pairs-lmdb.jsonl:LMDB"
	} >"$out/hdf5-pairs.md"
}

# part_model: fit the model to the runs on emulated hosts (hosts and
# stagger parts) with the emulator's layout and costs set as configured
# (4 servers of 1 ms a request plus 400 MB/s, 0.5 ms round trip, 1 GB/s
# per host, 1 MiB requests and readahead, this machine's cores shared by
# all hosts) and the CPU speeds, the contention and the start-up (a fixed part
# and each process's CPU, which all hosts' processes share) fitted; the
# runs on 8 hosts are held out and predicted; two more fits hold out the
# runs on 1 host and those of one stacked mode. Then the Lustre-like
# prediction to 256 nodes of 36 cores, and the fitted one to 16 hosts.
part_model() {
	local fits=() f
	for f in "$out"/hosts-*.jsonl "$out"/stagger-*.jsonl; do
		[ -e "$f" ] && fits+=("$f")
	done
	[ ${#fits[@]} -gt 0 ] || { echo "bench/run.sh: model: no hosts-*.jsonl in $out: run the hosts part first" >&2; return 1; }
	local emu=(--set servers=4 --set server_overhead_s=0.001 --set server_bandwidth=4e8 --set latency_s=0.0005
		--set readahead=1MiB --set max_request=1MiB --set node_read=1e9
		--set cores="$(nproc)" --set shared_cores="$(nproc)")
	local free=contention,mem_copy,cursor_step_s,touch_rate,startup_s,process_cpu_s
	"$kit" model fit --json "${emu[@]}" --free "$free" \
		--hold-out 'nodes>=8' --out "$out/model-fit" "${fits[@]}" >"$out/model-fit.jsonl"
	# Two more validations: the other end of the hosts (fit on 2, 4 and 8),
	# and a stacked mode the fit never saw.
	"$kit" model fit --json "${emu[@]}" --free "$free" --hold-out 'nodes<=1' "${fits[@]}" >"$out/model-fit-1host.jsonl"
	"$kit" model fit --json "${emu[@]}" --free "$free" --hold-out 'contender=lmm+dio+prov+coal' "${fits[@]}" \
		>"$out/model-fit-contender.jsonl"
	# lmdbio's node readers read a network file system with O_DIRECT.
	"$kit" model predict --json --direct --nodes 1..256 --ranks-per-node 36 --out "$out/model-lustre" >"$out/model-predict.jsonl"
	"$kit" model predict --direct --params "$out/model-fit/params.json" --nodes 1..16 --ranks-per-node "$slots" \
		--out "$out/model-emulator" >/dev/null
}

part_report() {
	local ins=() f label
	for f in "$out"/*.jsonl; do
		label=$(basename "$f" .jsonl)
		case $label in
		local | resnet50) label=local ;;
		pfsemu) label=pfsemu ;;
		hosts-*) label=hosts ;;
		pagerpc-*) label=pagerpc ;;
		stagger-*) label=stagger ;;
		esac
		ins+=(-in "$f:$label")
	done
	[ ${#ins[@]} -gt 0 ] || { echo "bench/run.sh: report: no .jsonl in $out" >&2; return 1; }
	go run ./bench/report "${ins[@]}" -out "$out" >/dev/null
	echo "wrote $out/results.md and plots" >&2
}

for p in "${parts[@]}"; do
	timed "$p" "part_$p"
done
