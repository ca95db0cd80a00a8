#!/usr/bin/env bash
# selftest.sh checks that every peer baseline reads every record exactly once:
# it writes a small LMDB and two small HDF5 files with `lmdbio gen`, runs each
# peer in the configurations the benchmark uses, and compares each peer's
# digest with `lmdbio digest`'s (HDF5: with h5py's sequential read).
# It also checks that bad input exits with status 2. One PASS/FAIL line per
# run; exit status 1 if any run fails. Needs bin/lmdbio (make build),
# lib/liblmdbio.so (make lib) for torch_lmdbio, and the Debian Python
# packages (scripts/deps.sh --peers).
#
#   bench/peers/selftest.sh
#
# Environment: PYTHON (default /usr/bin/python3), LMDBIO (default bin/lmdbio),
# PEER_TEST_TIMEOUT (seconds per run, default 120).
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON=${PYTHON:-/usr/bin/python3}
LMDBIO=${LMDBIO:-bin/lmdbio}
limit=${PEER_TEST_TIMEOUT:-120}
peers=bench/peers
# OpenMPI refuses to run as root unless told it is on purpose (containers, CI);
# vader's single-copy transfer (CMA) is forbidden in many containers.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}

if [ ! -x "$LMDBIO" ]; then
	echo "selftest: $LMDBIO not found: run make build" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=$tmp/db
"$LMDBIO" gen --records 300 --size 20KB,4KB --datum --out "$data" >/dev/null
read -r want want_bytes < <("$LMDBIO" digest --json "$data" | "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); print(d["digest"], d["bytes"])')
echo "selftest: lmdbio digest $want, $want_bytes bytes"

failed=0

# check NAME CMD... runs a peer and compares the digest of its JSON line with want.
check() {
	local name=$1 got run
	shift
	run=(timeout "$limit" "$@")
	if [ "$(type -t "$1")" = function ]; then
		run=("$@") # the function times its own commands
	fi
	if ! got=$("${run[@]}" 2>"$tmp/err" | "$PYTHON" -c \
		'import json,sys; r=json.loads(sys.stdin.read()); assert r["type"]=="peer" and r["records"]==300, r; print(r["digest"])' 2>>"$tmp/err"); then
		echo "FAIL $name: $(tail -n 3 "$tmp/err" | tr '\n' ' ')"
		failed=1
	elif [ "$got" != "$want" ]; then
		echo "FAIL $name: digest $got, want $want"
		failed=1
	else
		echo "PASS $name"
	fi
}

# check_touch NAME CMD... runs a peer with the touch consumer: it must report
# every record and byte, say its consumer, carry no digest, and count its
# times from the process start (start-up within the window).
check_touch() {
	local name=$1
	shift
	if timeout "$limit" "$@" 2>"$tmp/err" | "$PYTHON" -c '
import json, sys
r = json.loads(sys.stdin.read())
want_bytes = int(sys.argv[1])
assert r["consumer"] == "touch" and r["digest"] == "", r
assert r["records"] == 300 and r["bytes"] == want_bytes, r
assert 0 < r["process_startup_s"] <= r["startup_s"] <= r["first_batch_s"] <= r["seconds"] <= r["total_s"], r
assert r["loop_s"] <= r["seconds"] - r["startup_s"] + 1e-6, r
' "$want_bytes" 2>>"$tmp/err"; then
		echo "PASS $name"
	else
		echo "FAIL $name: $(tail -n 3 "$tmp/err" | tr '\n' ' ')"
		failed=1
	fi
}

# check_epochs NAME RECORDS CMD... runs a peer for 2 epochs with the touch
# consumer: each epoch must report RECORDS records, and the epochs' times
# must follow one another and add up, with the start-up, to the window.
check_epochs() {
	local name=$1 records=$2
	shift 2
	if timeout "$limit" "$@" --epochs 2 --consumer touch 2>"$tmp/err" | "$PYTHON" -c '
import json, sys
r = json.loads(sys.stdin.read())
n = int(sys.argv[1])
es = r["epochs"]
assert r["records"] == 2 * n and [e["epoch"] for e in es] == [0, 1], r
assert all(e["records"] == n and e["bytes"] * 2 == r["bytes"] for e in es), es
assert r["startup_s"] < es[0]["end_s"] < es[1]["end_s"] and abs(es[1]["end_s"] - r["seconds"]) < 1e-6, r
assert abs(r["startup_s"] + es[0]["seconds"] + es[1]["seconds"] - r["seconds"]) < 1e-6, r
assert all(0 <= e["stall_s"] <= e["seconds"] + 1e-6 and e["storage_bytes"] >= 0 for e in es), es
' "$records" 2>>"$tmp/err"; then
		echo "PASS $name"
	else
		echo "FAIL $name: $(tail -n 3 "$tmp/err" | tr '\n' ' ')"
		failed=1
	fi
}

# check_usage NAME CMD... expects exit status 2 and one error line.
check_usage() {
	local name=$1 rc=0
	shift
	timeout "$limit" "$@" >/dev/null 2>"$tmp/err" || rc=$?
	if [ "$rc" -ne 2 ]; then
		echo "FAIL $name: exit status $rc, want 2"
		failed=1
	else
		echo "PASS $name"
	fi
}

# shares N CMD... runs the N shares of a per-rank peer at once (CMD --rank R
# --world N), as the benchmark driver does, and prints one line with their
# summed records and digest.
shares() {
	local n=$1 r pids=()
	shift
	rm -f "$tmp"/share.*
	for ((r = 0; r < n; r++)); do
		timeout "$limit" "$@" --rank "$r" --world "$n" >"$tmp/share.$r" &
		pids+=($!)
	done
	for r in "${pids[@]}"; do
		wait "$r" || return 1
	done
	cat "$tmp"/share.* | "$PYTHON" -c '
import json, sys
rs = [json.loads(line) for line in sys.stdin]
digest = sum(int(r["digest"], 16) for r in rs) % 2**64
print(json.dumps({"type": "peer", "records": sum(r["records"] for r in rs), "digest": "%016x" % digest}))'
}

torch=("$PYTHON" "$peers/torch_lmdb.py")
caffe=("$PYTHON" "$peers/caffe_lmdb.py")
torch_lmdbio=("$PYTHON" "$peers/torch_lmdbio.py" --lmdbio "$LMDBIO")
mpi=(mpirun --oversubscribe)

check "torch workers=2 readahead=on" "${torch[@]}" "$data" --workers 2 --readahead on
check "torch workers=2 readahead=off" "${torch[@]}" "$data" --workers 2 --readahead off
check "torch workers=2 hash-in-workers batch=7" "${torch[@]}" "$data" --workers 2 --hash-in-workers --batch 7
check "torch workers=0 shuffle=off data.mdb" "${torch[@]}" "$data/data.mdb" --workers 0 --shuffle off
check "caffe single process" "${caffe[@]}" "$data"
check_touch "torch workers=2 consumer=touch" "${torch[@]}" "$data" --workers 2 --consumer touch
check_touch "torch workers=2 consumer=touch in workers" "${torch[@]}" "$data" --workers 2 --consumer touch --hash-in-workers
check_touch "caffe consumer=touch" "${caffe[@]}" "$data" --consumer touch
check_epochs "torch workers=2 epochs=2" 300 "${torch[@]}" "$data" --workers 2
if [ -f lib/liblmdbio.so ]; then
	check "torch_lmdbio 2 nodes x 2 learners" "${torch_lmdbio[@]}" "$data" --nodes 2 --learners-per-node 2
	check "torch_lmdbio 1 node x 3 learners batch=7 shuffle=none" "${torch_lmdbio[@]}" "$data" --learners-per-node 3 --batch 7 --shuffle none
	check_touch "torch_lmdbio consumer=touch compute=2ms" "${torch_lmdbio[@]}" "$data" --nodes 2 --learners-per-node 2 --consumer touch --compute-ms 2
	check_usage "torch_lmdbio missing dataset" "${torch_lmdbio[@]}" "$tmp/none"
	check_usage "torch_lmdbio not a dataset" "${torch_lmdbio[@]}" /etc/hostname --learners-per-node 1
	check_usage "torch_lmdbio bad flag" "${torch_lmdbio[@]}" "$data" --compute-ms -1
else
	echo "FAIL torch_lmdbio: lib/liblmdbio.so not found (make lib)"
	failed=1
fi
if command -v mpirun >/dev/null; then
	check "caffe np=1" "${mpi[@]}" -np 1 "${caffe[@]}" "$data"
	check "caffe np=3" "${mpi[@]}" -np 3 "${caffe[@]}" "$data"
	check "caffe np=3 batch=7 readahead=off" "${mpi[@]}" -np 3 "${caffe[@]}" "$data" --batch 7 --readahead off
else
	echo "FAIL caffe under MPI: mpirun not found (scripts/deps.sh)"
	failed=1
fi

# The benchmark driver starts the caffe ranks itself (--rank/--world, no MPI)
# and sums their lines: records, bytes and digests add.
check "caffe 3 shares (--rank/--world) summed" shares 3 "${caffe[@]}" "$data"
# A DDP job's processes (torch-ddp): each reads its DistributedSampler share.
check "torch 3 DDP shares (--rank/--world) summed" shares 3 "${torch[@]}" "$data" --workers 1
check_usage "torch --rank without --world" "${torch[@]}" "$data" --rank 1

# HDF5: the torch peer over h5py, on a chunked+gzip file and a contiguous one.
# The reference digest is h5py's sequential read of every row; lmdbio digest,
# where it reads HDF5, must agree with it.
h5_digest() {
	"$PYTHON" -c '
import hashlib, sys, h5py
d, total = h5py.File(sys.argv[1], "r")["data"], 0
for i in range(d.shape[0]):
    h = hashlib.sha256(i.to_bytes(8, "little") + d[i].tobytes()).digest()
    total = (total + int.from_bytes(h[:8], "little")) % (1 << 64)
print("%016x" % total)' "$1"
}
h5=$tmp/images.h5
h5flat=$tmp/flat.hdf5
"$LMDBIO" gen --format hdf5 --records 300 --size 3x16x16 --chunk 32 --gzip 4 --shuffle-filter --out "$h5" >/dev/null
"$LMDBIO" gen --format hdf5 --records 300 --size 1KiB --seed 2 --out "$h5flat" >/dev/null
torch_h5=("$PYTHON" "$peers/torch_h5py.py")
for file in "$h5" "$h5flat"; do
	want=$(h5_digest "$file")
	want_bytes=$("$PYTHON" -c 'import sys, h5py; d = h5py.File(sys.argv[1], "r")["data"]; print(d.shape[0] * d[0].nbytes)' "$file")
	echo "selftest: h5py digest of $(basename "$file") $want"
	if got=$("$LMDBIO" digest --json "$file" 2>"$tmp/err" | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["digest"])' 2>/dev/null); then
		if [ "$got" != "$want" ]; then
			echo "FAIL lmdbio digest $(basename "$file"): $got, want $want"
			failed=1
		else
			echo "PASS lmdbio digest $(basename "$file")"
		fi
	else
		echo "SKIP lmdbio digest $(basename "$file"): $(head -n 1 "$tmp/err")"
	fi
	name=$(basename "$file")
	check "torch_h5py $name workers=2" "${torch_h5[@]}" "$file" --workers 2
	check "torch_h5py $name workers=2 shuffle=off hash-in-workers batch=7" "${torch_h5[@]}" "$file" --workers 2 --shuffle off --hash-in-workers --batch 7
	check "torch_h5py $name workers=0 labels=none" "${torch_h5[@]}" "$file" --workers 0 --labels none
	check_touch "torch_h5py $name workers=2 consumer=touch" "${torch_h5[@]}" "$file" --workers 2 --consumer touch
	check_epochs "torch_h5py $name workers=2 epochs=2" 300 "${torch_h5[@]}" "$file" --workers 2
done

check_usage "torch_h5py not HDF5" "${torch_h5[@]}" "$data/data.mdb"
check_usage "torch_h5py missing dataset" "${torch_h5[@]}" "$h5" --dataset images
check_usage "torch_h5py missing file" "${torch_h5[@]}" "$tmp/none.h5"
check_usage "torch_h5py bad flag" "${torch_h5[@]}" "$h5" --workers -1
check_usage "torch missing dataset" "${torch[@]}" "$tmp/none"
check_usage "torch not an LMDB" "${torch[@]}" /etc/hostname
check_usage "torch bad flag" "${torch[@]}" "$data" --workers -1
check_usage "caffe missing dataset" "${caffe[@]}" "$tmp/none"
check_usage "caffe bad flag" "${caffe[@]}" "$data" --batch 0
check_usage "caffe --rank without --world" "${caffe[@]}" "$data" --rank 1
check_usage "torch unknown consumer" "${torch[@]}" "$data" --consumer md5

if [ "$failed" -ne 0 ]; then
	echo "selftest: FAILED"
	exit 1
fi
echo "selftest: all passed"
