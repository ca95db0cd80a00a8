#!/usr/bin/env bash
# test.sh checks lmdbio's bindings end to end (make test-bindings; needs
# make build examples first): the C library's answers to misuse (one status
# on every rank for a failed open), the C and Caffe-MPI examples and the
# Python binding under mpirun (4 ranks as 2 virtual nodes) and as learners
# of lmdbio run --agent (4 learners on 2 virtual nodes) against `lmdbio
# digest`, a shuffled run resumed through the C ABI, a learner killed in
# agent mode, a launcher without MPI, pip install, and the README's C and
# Python examples. It prints one PASS/FAIL line per check and exits
# non-zero if any fails.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

# The Python checks need numpy, torch and py-lmdb (Debian's packages, run
# with Debian's interpreter).
scripts/deps.sh --peers
python=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
export PKG_CONFIG_PATH=$repo/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PYTHONPATH=$repo/python
limit=${BINDINGS_TEST_TIMEOUT:-120}
mpirun=(timeout -k 10 "$limit" mpirun --oversubscribe -x LMDBIO_RANKS_PER_NODE=2 -x PYTHONPATH -np 4)
agent=(timeout -k 10 "$limit" bin/lmdbio run --agent -n 2 -N 2 --learners-per-node 2 --)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# check NAME WANT CMD...: CMD must exit 0 and print WANT on stdout.
check() {
	local name=$1 want=$2
	shift 2
	local got rc=0
	got=$("$@" 2>"$tmp/stderr") || rc=$?
	if [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
		echo "PASS $name"
	else
		echo "FAIL $name (exit $rc)"
		printf '    want: %s\n    got:  %s\n' "$want" "$got"
		sed 's/^/    /' "$tmp/stderr"
		failed=1
	fi
}

# A Caffe dataset whose record count divides by no batch size used here.
ds=$tmp/train_lmdb
bin/lmdbio gen --records 2003 --size 3KiB,1KiB --datum --order random --out "$ds" >/dev/null
want=$(bin/lmdbio digest "$ds")
want2=$(bin/lmdbio digest --epochs 2 "$ds")
echo notlmdb >"$tmp/notlmdb"

cc -O2 -Wall -Wextra -Werror -pthread -o "$tmp/badinput" cmd/liblmdbio/testdata/badinput.c $(pkg-config --cflags --libs lmdbio)
check "C ABI: bad input" "badinput: ok" timeout "$limit" "$tmp/badinput" "$ds" "$tmp/notlmdb" 2003
cc -O2 -Wall -Wextra -Werror -pthread -o "$tmp/statuses" cmd/liblmdbio/testdata/statuses.c $(pkg-config --cflags --libs lmdbio)
check "C ABI: a failed open has one status on every rank, 4 ranks, 2 nodes" "statuses: ok" "${mpirun[@]}" "$tmp/statuses" "$ds"
check "C ABI: a failed open has one status on every learner, agent, 2 nodes" "statuses: ok" "${agent[@]}" "$tmp/statuses" "$ds"
mpicc -O2 -Wall -Werror -o "$tmp/hosted_single" cmd/liblmdbio/testdata/hosted_single.c $(pkg-config --cflags --libs lmdbio)
check "C ABI: a host's MPI without threads" "hosted_single: ok" timeout "$limit" "$tmp/hosted_single"
cc -O2 -Wall -Wextra -Werror -o "$tmp/resume" cmd/liblmdbio/testdata/resume.c $(pkg-config --cflags --libs lmdbio)
check "C ABI: global shuffle resumed, 4 ranks, 2 nodes" "resume: ok" "${mpirun[@]}" "$tmp/resume" "$ds" 2003
check "C ABI: global shuffle resumed, agent, 4 learners, 2 nodes" "resume: ok" "${agent[@]}" "$tmp/resume" "$ds" 2003
check "C digest, 4 ranks, 2 nodes" "$want" "${mpirun[@]}" bin/c-digest-example "$ds" "batch=9"
check "Caffe-MPI example, 4 ranks, 2 nodes" "$want" bin/lmdbio run -n 4 -N 2 -- bin/caffe-mpi-example "$ds"
check "Caffe-MPI example, 2 epochs through SeekToFirst" "$want2" \
	env LMDBIO_OPTIONS="remainder=keep mode=lmdb batch=16" bin/lmdbio run -n 3 -- bin/caffe-mpi-example --epochs 2 "$ds"

check "Python: bad input" "python bad-input tests: ok" timeout "$limit" "$python" python/tests/badinput.py "$ds"
check "Python: loader and torch, 4 ranks, 2 nodes" "python mpi tests on 4 ranks, 2 nodes: ok" \
	"${mpirun[@]}" "$python" python/tests/mpi_loader.py "$ds"
check "Python: digest, 4 ranks, 2 nodes" "$want" "${mpirun[@]}" "$python" -m lmdbio digest "$ds"
check "Python: loader and torch, agent, 4 learners, 2 nodes" "python mpi tests on 4 ranks, 2 nodes: ok" \
	"${agent[@]}" "$python" python/tests/mpi_loader.py "$ds"
check "Python: digest, agent, 4 learners, 2 nodes" "$want" "${agent[@]}" "$python" -m lmdbio digest "$ds"
# Every learner writes its tensors in place for 3 cached epochs: every
# epoch's digest is still the dataset's, and the zero-copy views refuse a
# write with an exception.
want3=$(bin/lmdbio digest --epochs 3 "$ds")
check "Python: tensors written in place, 3 cached epochs, 4 ranks, 2 nodes" "$want3
inplace: ok" "${mpirun[@]}" "$python" python/tests/inplace.py "$ds"

# A loader dropped without close whose close fails in __del__: not exit 0.
rc=0
out=$(timeout "$limit" "$python" python/tests/dropped.py "$ds" 2>"$tmp/stderr") || rc=$?
if [ "$rc" -eq 1 ] && [ "$out" = "dropped: ran" ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] &&
	grep -q "^lmdbio: a loader of .* dropped without close failed to close: RuntimeFailure: closing failed on purpose$" "$tmp/stderr"; then
	echo "PASS Python: a failed close in __del__ is not exit 0"
else
	echo "FAIL Python: a failed close in __del__ is not exit 0 (exit $rc)"
	sed 's/^/    /' "$tmp/stderr"
	failed=1
fi

# A host that removed the thread's alternate signal stack (CPython's
# faulthandler at shutdown) while SIGURG keeps coming: no Go runtime dump
# from the exit handlers, Python's or the C library's.
for how in finalize c-exit; do
	check "Python: calls after the signal stack was removed ($how)" "altstack: ok" \
		timeout "$limit" "$python" python/tests/altstack.py "$ds" "$how"
done

# An HDF5 file (lmdbio_open finds its format), with its labels.
h5=$tmp/images.h5
bin/lmdbio gen --format hdf5 --records 301 --size 3x16x16 --chunk 32 --gzip 4 --out "$h5" >/dev/null
check "Python: HDF5 digest, 4 ranks, 2 nodes" "$(bin/lmdbio digest "$h5")" "${mpirun[@]}" "$python" -m lmdbio digest "$h5"
check "Python: HDF5 rows and labels, agent, 4 learners, 2 nodes" "python hdf5 tests on 4 learners: ok" \
	"${agent[@]}" "$python" python/tests/hdf5_labels.py "$h5"

# Encoded-Datum JPEGs through prep=: torchvision's CenterCrop of PIL's decode,
# byte for byte, and a training pipeline's prep digest the same at 1 rank, 4
# ranks on 2 nodes (MPI) and 4 agent learners as lmdbio digest --prep at 1;
# the C ABI's tensor; Caffe reading decoded Datums (prep=decode).
jpegs=$tmp/jpeg_lmdb
bin/lmdbio gen --jpeg --records 64 --seed 5 --out "$jpegs" >/dev/null
pipe=decode,random_resized_crop:64,flip,normalize:imagenet,chw,float16
prepwant=$(bin/lmdbio digest --prep "$pipe" --seed 9 --shuffle global --epochs 2 --batch 3 "$jpegs" |
	awk '{split($4, d, "="); print d[2]}' | paste -sd' ')
prepsum=$("$python" -c "import sys; print(f'prep digest {sum(int(x, 16) for x in sys.argv[1:]) % (1 << 64):016x}')" $prepwant)
check "Python: prep, 1 rank" "python prep tests: ok
$prepsum" timeout "$limit" "$python" python/tests/prep.py "$jpegs"
check "Python: prep, 4 ranks, 2 nodes" "python prep tests: ok
$prepsum" "${mpirun[@]}" "$python" python/tests/prep.py "$jpegs"
check "Python: prep, agent, 4 learners, 2 nodes" "python prep tests: ok
$prepsum" "${agent[@]}" "$python" python/tests/prep.py "$jpegs"
cc -O2 -Wall -Wextra -Werror -pthread -o "$tmp/prepimages" cmd/liblmdbio/testdata/prepimages.c $(pkg-config --cflags --libs lmdbio)
# GOGC=1 collects all the time: a Go pointer of an earlier batch left where
# the write barrier could see it (in C memory) aborts the process.
check "C ABI: prep's tensor, labels and decoded Datums, 4 ranks, 2 nodes, GOGC=1" "prepimages: ok" \
	timeout -k 10 "$limit" mpirun --oversubscribe -x LMDBIO_RANKS_PER_NODE=2 -x GOGC=1 -np 4 "$tmp/prepimages" "$jpegs" 64
check "Caffe-MPI example, prep=decode: decoded Datums, 4 ranks, 2 nodes" "$(bin/lmdbio digest --prep decode "$jpegs")" \
	env LMDBIO_OPTIONS="prep=decode batch=4" bin/lmdbio run -n 4 -N 2 -- bin/caffe-mpi-example "$jpegs"
check "CLI: a bad prep spec is a usage error" "exit 2" sh -c \
	"bin/lmdbio digest --prep decode,bogus '$jpegs' >/dev/null 2>&1; echo exit \$?"

# A learner killed in the middle of an epoch ends the agent job within
# 10 s, non-zero, with nothing of the job left: no process, no file in
# /dev/shm (the agents' Open MPI files, lmdbio's segments). So does an agent
# killed, and its learners say that their agent has gone.
agent_kill() {
	local victim=$1 want=$2 data=$tmp/kill-$1 job rc=0 learner agentpid ompi lmdbio_job started
	ln -s "$ds" "$data"
	"${agent[@]}" "$python" -m lmdbio digest --epochs 1000 --batch 1 "$data" >"$tmp/kill.out" 2>"$tmp/kill.err" &
	job=$!
	for _ in $(seq 100); do
		learner=$(for p in $(pgrep -f "lmdbio digest --epochs 1000 --batch 1 $data" || true); do
			if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx RANK=2; then echo "$p"; fi
		done)
		agentpid=$(for p in $(pgrep -f "^$repo/bin/lmdbio agent --learners-per-node 2 -- $python -m lmdbio digest --epochs 1000 --batch 1 $data" || true); do
			if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1; then echo "$p"; fi
		done)
		[ -n "$learner" ] && [ -n "$agentpid" ] && break
		sleep 0.2
	done
	ompi=$(tr '\0' '\n' <"/proc/$agentpid/environ" 2>/dev/null | sed -n 's/^OMPI_MCA_ess_base_jobid=//p' || true)
	lmdbio_job=$(tr '\0' '\n' <"/proc/$agentpid/environ" 2>/dev/null | sed -n 's/^LMDBIO_JOB_ID=//p' || true)
	sleep 2 # in the middle of the epoch
	started=$(date +%s%N)
	if [ "$victim" = learner ]; then kill -KILL "$learner"; else kill -KILL "$agentpid"; fi
	wait "$job" || rc=$?
	local took=$((($(date +%s%N) - started) / 1000000))
	sleep 1
	local left shm
	left=$(pgrep -fa -- "$data" || true)
	shm=$(ls /dev/shm | grep -e "^vader_segment\..*\.$(printf %x "${ompi:-0}")\." -e "^lmdbio\.${lmdbio_job:-none}\." || true)
	if [ -n "$learner" ] && [ -n "$ompi" ] && [ "$rc" -eq 1 ] && [ "$took" -lt 10000 ] && [ -z "$left" ] && [ -z "$shm" ] &&
		grep -q "$want" "$tmp/kill.err"; then
		echo "PASS agent: $victim killed mid-epoch (the job ended in ${took} ms)"
	else
		echo "FAIL agent: $victim killed mid-epoch (learner ${learner:-not found}, exit $rc after ${took} ms)"
		[ -z "$left" ] || printf '    left running: %s\n' "$left"
		[ -z "$shm" ] || printf '    left in /dev/shm: %s\n' "$shm"
		sed 's/^/    /' "$tmp/kill.err"
		failed=1
	fi
}
agent_kill learner "lmdbio run --agent: learner rank 2 .* was killed by signal 9 (SIGKILL)"
agent_kill agent "the lmdbio agent of node 1 (pid [0-9]*).* has gone"

# A learner that exits 0 with its loader open, in the middle of the run,
# ends the job as one that dies does, also when the others swallow the
# failure.
agent_leave() {
	local rc=0 started took
	started=$(date +%s%N)
	"${agent[@]}" "$python" python/tests/leave.py "$ds" >/dev/null 2>"$tmp/leave.err" || rc=$?
	took=$((($(date +%s%N) - started) / 1000000))
	if [ "$rc" -eq 1 ] && [ "$took" -lt 15000 ] &&
		grep -q "lmdbio run --agent: learner rank 1 .* exited with its loader of .* open" "$tmp/leave.err"; then
		echo "PASS agent: a learner left with its loader open (the job ended in ${took} ms)"
	else
		echo "FAIL agent: a learner left with its loader open (exit $rc after ${took} ms)"
		sed 's/^/    /' "$tmp/leave.err"
		failed=1
	fi
}
agent_leave

# A learner that fails on one rank while the others read on ends the job
# within 10 s of starting (the others would read for minutes), with exit 1
# and lmdbio's one line naming the rank, its host and what happened, and
# nothing of the job left in /dev/shm: an uncaught exception before or
# after the loader opens, sys.exit(1), KeyboardInterrupt, a C main that
# returns 1, under lmdbio run with MPI ranks and with an agent.
cc -O2 -Wall -Wextra -Werror -pthread -o "$tmp/failfast" cmd/liblmdbio/testdata/failfast.c $(pkg-config --cflags --libs lmdbio)
fail_fast() {
	local mode=$1 want=$2 rc=0 started took run shm lines
	shift 2
	started=$(date +%s%N)
	if [ "$mode" = agent ]; then
		timeout -k 10 "$limit" bin/lmdbio run --agent -n 2 -N 2 --learners-per-node 2 -- "$@" >/dev/null 2>"$tmp/fail.err" &
	else
		timeout -k 10 "$limit" bin/lmdbio run -n 4 -N 2 -- "$@" >/dev/null 2>"$tmp/fail.err" &
	fi
	local job=$!
	sleep 0.2
	run=$(pgrep -P "$job" | head -1 || true)
	wait "$job" || rc=$?
	took=$((($(date +%s%N) - started) / 1000000))
	shm=$(ls /dev/shm | grep -e "^lmdbio\.run-${run:-none}-" || true)
	lines=$(grep -c -e '^lmdbio[: ]' -e '^-----' -e 'ORTE_ERROR_LOG' "$tmp/fail.err" || true)
	# One line of lmdbio's besides lmdbio run's banner about emulated nodes.
	if [ "$rc" -eq 1 ] && [ "$took" -lt 10000 ] && [ -z "$shm" ] && [ "$lines" -eq 2 ] &&
		grep -q "^lmdbio: rank 1 (local rank 1 of node 0 on $(hostname), pid [0-9]*) $want; ending the job$" "$tmp/fail.err"; then
		echo "PASS fail fast, $mode: ${*: -1} (the job ended in ${took} ms)"
	else
		echo "FAIL fail fast, $mode: ${*: -1} (exit $rc after ${took} ms)"
		[ -z "$shm" ] || printf '    left in /dev/shm: %s\n' "$shm"
		sed 's/^/    /' "$tmp/fail.err"
		failed=1
	fi
}
for mode in mpi agent; do
	fail_fast $mode "raised ValueError: a bad sample on purpose" "$python" python/tests/fail.py "$ds" raise-before
	fail_fast $mode "raised ValueError: a bad sample on purpose" "$python" python/tests/fail.py "$ds" raise-after
	fail_fast $mode "exited with status 1" "$python" python/tests/fail.py "$ds" exit
	fail_fast $mode "raised KeyboardInterrupt" "$python" python/tests/fail.py "$ds" interrupt
	fail_fast $mode "exited with status 1" "$tmp/failfast" "$ds" return
done

# torchrun starts processes without MPI: each would read everything alone.
# The job's first process (RANK=0) says so in one line.
for cmd in "bin/lmdbio digest" "$python -m lmdbio digest"; do
	rc=0
	# $cmd is split on purpose: a program and its arguments.
	# shellcheck disable=SC2086
	out=$(RANK=0 WORLD_SIZE=4 $cmd "$ds" 2>"$tmp/stderr") || rc=$?
	if [ "$rc" -eq 2 ] && [ -z "$out" ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && grep -q "lmdbio run -n 4 -- " "$tmp/stderr"; then
		echo "PASS launcher without MPI: $cmd"
	else
		echo "FAIL launcher without MPI: $cmd (exit $rc)"
		sed 's/^/    /' "$tmp/stderr"
		failed=1
	fi
done

# pip install ./python into a virtual environment (with Debian's numpy and
# torch), from a copy so the source tree stays clean; LMDBIO_LIB finds the library.
cp -r python "$tmp/python-src"
"$python" -m venv --system-site-packages "$tmp/venv"
if "$tmp/venv/bin/pip" install -q --no-build-isolation --no-index "$tmp/python-src" >"$tmp/pip.log" 2>&1; then
	check "pip install ./python" "$want" env -u PYTHONPATH -C "$tmp" LMDBIO_LIB="$repo/lib/liblmdbio.so" \
		"$tmp/venv/bin/python" -m lmdbio digest "$ds"
else
	echo "FAIL pip install ./python"
	sed 's/^/    /' "$tmp/pip.log"
	failed=1
fi

# The README's C and Python examples, built and run as they stand.
# block LANG N prints the README's Nth code block in LANG (there are two
# Python examples).
block() { awk -v lang="$1" -v n="$2" '$0 == "```" lang {k++; if (k == n) {on = 1; next}} /^```/ {on = 0} on' README.md; }
block c 1 >"$tmp/readme.c"
block python 1 >"$tmp/readme.py"
block python 2 >"$tmp/readme_ddp.py"
if [ -s "$tmp/readme.c" ] && mpicc -Wall -Werror -o "$tmp/readme-c" -x c "$tmp/readme.c" $(pkg-config --cflags --libs lmdbio) 2>"$tmp/stderr"; then
	check "README C example" "$(bin/lmdbio digest --batch 64 "$ds" | sed 's/ digest=.*//')" "${mpirun[@]}" "$tmp/readme-c" "$ds"
	check "README C example, agent" "$(bin/lmdbio digest --batch 64 "$ds" | sed 's/ digest=.*//')" "${agent[@]}" "$tmp/readme-c" "$ds"
else
	echo "FAIL README C example: no \`\`\`c block, or it does not compile"
	sed 's/^/    /' "$tmp/stderr"
	failed=1
fi
check "README Python example" "$(bin/lmdbio digest "$ds" | sed 's/ digest=.*//')" \
	"${mpirun[@]}" "$python" "$tmp/readme.py" "$ds"
check "README DDP example, agent" "trained 2 epochs on 4 learners" "${agent[@]}" "$python" "$tmp/readme_ddp.py" "$ds"

exit "$failed"
