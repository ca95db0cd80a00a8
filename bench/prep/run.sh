#!/usr/bin/env bash
# bench/prep/run.sh measures lmdbio's built-in prep against torchvision per
# core, on the same ImageNet-sized JPEGs of real photographs, in one run:
#
#   lmdbio   BenchmarkPipeline/steps=train (internal/prep): decode,
#            random_resized_crop:224, flip, normalize:imagenet, chw, float16,
#            on one core (taskset), and on two cores when there are two
#   peer     torchvision_prep.py: the same transform in one Python thread on
#            one core, as one DataLoader worker runs it
#
# Rounds alternate the contenders (which one goes first alternates too), so
# the drift of a shared machine falls on both; the summary gives medians
# over rounds and the ratios of the medians.
#
#   bench/prep/run.sh [--rounds N] [--samples N] [--files N] [--jpegs DIR]
#
# --jpegs DIR times the *.jpg files of DIR instead of crops of scikit-learn's
# sample photographs. Needs Go, libturbojpeg, and /usr/bin/python3 with
# Pillow, torchvision and scikit-learn (scripts/deps.sh --test).
set -euo pipefail
cd "$(dirname "$0")/../.."

rounds=5 samples=2000 files=32 jpegs=""
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift 2 ;;
	--samples) samples=$2; shift 2 ;;
	--files) files=$2; shift 2 ;;
	--jpegs) jpegs=$2; shift 2 ;;
	-h | --help) sed -n '2,21p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
python=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$jpegs" ]; then
	jpegs=$work/jpegs
	mkdir -p "$jpegs"
	"$python" bench/prep/make_jpegs.py "$jpegs" "$files"
fi
go test -c -o "$work/prep.test" ./internal/prep
cores=$(nproc)

# lmdbio CORES: samples/s of the Go pipeline on cores 0..CORES-1.
lmdbio() {
	local n=$1 cpus
	cpus=$(seq -s, 0 $((n - 1)))
	LMDBIO_PREP_JPEGS=$jpegs GOMAXPROCS=$n taskset -c "$cpus" "$work/prep.test" -test.run '^$' \
		-test.bench "^BenchmarkPipeline\$/^steps=train\$/^scaled=true\$/^cores=$n\$" -test.benchtime "${samples}x" |
		awk '/samples\/s/ { for (i = 1; i < NF; i++) if ($(i+1) == "samples/s") print $i }'
}
peer() {
	taskset -c 0 "$python" bench/prep/torchvision_prep.py "$jpegs" "$samples" |
		"$python" -c 'import json, sys; print(json.load(sys.stdin)["samples_per_s"])'
}

echo "prep benchmark: $(ls "$jpegs"/*.jpg | wc -l) JPEGs in $jpegs, $samples samples per measurement, $rounds rounds"
: >"$work/go1" >"$work/go2" >"$work/py"
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) = 1 ]; then
		a=$(lmdbio 1) b=$(peer)
	else
		b=$(peer) a=$(lmdbio 1)
	fi
	c=""
	[ "$cores" -ge 2 ] && c=$(lmdbio 2)
	echo "round $r: lmdbio 1 core $a samples/s, torchvision 1 thread $b samples/s${c:+, lmdbio 2 cores $c samples/s}"
	echo "$a" >>"$work/go1"
	echo "$b" >>"$work/py"
	[ -n "$c" ] && echo "$c" >>"$work/go2"
done
"$python" - "$work" <<'PY'
import json, statistics, sys
w = sys.argv[1]
def med(name):
    v = [float(x) for x in open(f"{w}/{name}").read().split()]
    return (statistics.median(v), min(v), max(v)) if v else None
go1, py, go2 = med("go1"), med("py"), med("go2")
print(f"lmdbio built-in, 1 core:   {go1[0]:7.0f} samples/s (min {go1[1]:.0f}, max {go1[2]:.0f})")
print(f"torchvision, 1 thread:     {py[0]:7.0f} samples/s (min {py[1]:.0f}, max {py[2]:.0f})")
print(f"ratio per core:            {go1[0] / py[0]:7.2f}x")
r = {"type": "prep-bench", "lmdbio_1core": go1[0], "torchvision_1thread": py[0], "ratio_per_core": go1[0] / py[0]}
if go2:
    print(f"lmdbio built-in, 2 cores:  {go2[0]:7.0f} samples/s (min {go2[1]:.0f}, max {go2[2]:.0f}), {go2[0] / go1[0]:.2f}x one core")
    r.update(lmdbio_2cores=go2[0], scaling_2cores=go2[0] / go1[0])
print(json.dumps(r))
PY
