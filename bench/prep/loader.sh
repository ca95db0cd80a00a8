#!/usr/bin/env bash
# bench/prep/loader.sh measures one learner's samples/s through lmdbio's
# loader on the ResNet-50 training input pipeline (decode,
# random_resized_crop:224, flip, normalize:imagenet, chw, float16), at 1 and
# 2 cores (taskset), two ways, in one run:
#
#   builtin      lmdbio.Loader(path, prep=...): the prep stage's threads
#                (prep-threads: the cores taskset leaves) prep ahead of Next
#   torchvision  lmdbio.Loader raw, then Pillow and torchvision in the
#                learner's thread (lmdbio's only way before prep)
#
# Rounds alternate the contenders, so a shared machine's drift falls on
# both; the summary gives medians over rounds and the ratio builtin /
# torchvision at each core count.
#
#   bench/prep/loader.sh [--rounds N] [--samples N] [--records N]
#
# Needs make build lib, and /usr/bin/python3 with numpy, Pillow and
# torchvision.
set -euo pipefail
cd "$(dirname "$0")/../.."

rounds=3 samples=1500 records=1000
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift 2 ;;
	--samples) samples=$2; shift 2 ;;
	--records) records=$2; shift 2 ;;
	-h | --help) sed -n '2,19p' "$0"; exit 0 ;;
	*) echo "loader.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
python=/usr/bin/python3
export PYTHONPATH=$PWD/python LMDBIO_LIB=$PWD/lib/liblmdbio.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin/lmdbio gen --jpeg --records "$records" --seed 1 --out "$work/jpeg_lmdb" >/dev/null
ncpu=$(nproc)
cores=(1)
[ "$ncpu" -ge 2 ] && cores+=(2)
for ((r = 0; r < rounds; r++)); do
	ways=(builtin torchvision)
	((r % 2)) && ways=(torchvision builtin)
	for c in "${cores[@]}"; do
		for way in "${ways[@]}"; do
			taskset -c "0-$((c - 1))" "$python" bench/prep/loader_prep.py "$work/jpeg_lmdb" "$way" "$samples" |
				sed "s/^{/{\"cores\": $c, /" >>"$work/results.jsonl"
		done
	done
done
"$python" - "$work/results.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
med = {}
for c in sorted({r["cores"] for r in rows}):
    for way in ("builtin", "torchvision"):
        v = [r["samples_per_s"] for r in rows if r["cores"] == c and r["way"] == way]
        med[c, way] = statistics.median(v)
        print(f"{way:12s} {c} core(s): {med[c, way]:7.0f} samples/s  ({min(v):.0f}-{max(v):.0f}, {len(v)} rounds)")
    print(f"ratio builtin/torchvision at {c} core(s): {med[c, 'builtin'] / med[c, 'torchvision']:.2f}x")
if (2, "builtin") in med:
    print(f"builtin 2 cores / 1 core: {med[2, 'builtin'] / med[1, 'builtin']:.2f}x")
PY
