"""Single-process checks of the Python binding's answers to misuse: each is
an exception of the right class with the C library's one-line message,
never a crash.

    python3 python/tests/badinput.py DATASET
"""

import json
import os
import pathlib
import subprocess
import sys
import threading

import lmdbio
from lmdbio import _lib

failures = []


def expect(exc, contains, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        if contains not in str(e):
            failures.append(f"{fn.__name__}{args}: {type(e).__name__}({e}) lacks {contains!r}")
        return
    except Exception as e:  # noqa: BLE001
        failures.append(f"{fn.__name__}{args}: {type(e).__name__}({e}), want {exc.__name__}")
        return
    failures.append(f"{fn.__name__}{args}: no error, want {exc.__name__}")


def run(env, *args):
    """Runs python3 args with env added; returns (exit status, stdout, stderr)."""
    p = subprocess.run([sys.executable, *args], env=dict(os.environ, **env), capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def main(path):
    expect(lmdbio.VersionError, "ABI version", lmdbio.init, _lib.ABI_VERSION + 1)
    expect(lmdbio.ArgumentError, '"colour"', lmdbio.Loader, path, colour="blue")
    expect(lmdbio.ArgumentError, "batch=0", lmdbio.Loader, path, batch=0)
    expect(lmdbio.ArgumentError, "one word", lmdbio.Loader, path, mode="lmm dio")
    expect(lmdbio.InputError, "/nonexistent/dataset", lmdbio.Loader, "/nonexistent/dataset")
    expect(lmdbio.InputError, __file__, lmdbio.Loader, __file__)

    # Two threads in one loader: a call that finds it busy raises BusyError
    # and takes nothing, so every record still arrives exactly once.
    ld = lmdbio.Loader(path, batch=3, remainder="keep")
    got, lock, go = [], threading.Lock(), threading.Event()

    def reader():
        go.wait()
        while True:
            try:
                b = ld.next()
            except lmdbio.BusyError as e:
                if "another thread" not in str(e):
                    failures.append(f"BusyError says {e}")
                continue
            if b is None:  # the end of the epoch, or after it
                return
            with lock:
                got.append(len(b))

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    go.set()
    for t in threads:
        t.join()
    if sum(got) != ld.records:
        failures.append(f"two threads in one loader got {sum(got)} records, want {ld.records}")
    ld.close()

    # Resume: a state taken mid-epoch, given back as its JSON, its dict or
    # a file, continues with the batches that were left.
    options = dict(batch=3, shuffle="global", seed=3, remainder="keep")
    with lmdbio.Loader(path, **options) as ld:
        total = len(ld)
        seen = [r for b in (ld.next(), ld.next()) for r in b.records]
        state = ld.state()
    statefile = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"lmdbio-state-{os.getpid()}.json")
    with open(statefile, "w") as f:
        f.write(state)
    try:
        for resume in (state, json.loads(state), pathlib.Path(statefile)):
            with lmdbio.Loader(path, resume=resume, **options) as ld:
                left = len(ld)
                rest = [r for b in ld for r in b.records]
                if left != total - 2 or sorted(seen + rest) != list(range(ld.records)):
                    failures.append(f"resume from {type(resume).__name__}: {len(seen)} + {len(rest)} records in "
                                    f"{left} batches, want each of {ld.records} once in {total - 2}")
    finally:
        os.unlink(statefile)
    expect(lmdbio.InputError, "/nonexistent/state.json", lmdbio.Loader, path, resume="/nonexistent/state.json")
    expect(lmdbio.InputError, "seed", lmdbio.Loader, path, resume=state, **dict(options, seed=4))

    # Use after close.
    b = lmdbio.Loader(path, batch=3)
    first = b.next()
    view = first.values[0]
    b.close()
    b.close()  # a second close does nothing
    expect(ValueError, "released", bytes, view)
    expect(lmdbio.HandleError, "closed", b.next)

    # finalize closes what is still open; nothing works afterwards.
    ld = lmdbio.Loader(path, batch=3)
    lmdbio.finalize()
    expect(lmdbio.HandleError, "closed", ld.next)
    expect(lmdbio.StateError, "lmdbio_finalize", lmdbio.Loader, path)

    # A library that is not there; a launcher without MPI.
    code, _, err = run({"LMDBIO_LIB": "/nonexistent/liblmdbio.so"}, "-c", "import lmdbio")
    if code == 0 or "LMDBIO_LIB=/nonexistent/liblmdbio.so: no such file" not in err:
        failures.append(f"LMDBIO_LIB naming no file: exit {code}: {err.strip()[-200:]}")
    code, out, err = run({"RANK": "1", "WORLD_SIZE": "4"}, "-m", "lmdbio", "digest", path)
    lines = err.strip().splitlines()
    if code != 2 or out or len(lines) != 1 or "lmdbio run -n 4 -- " not in lines[0]:
        failures.append(f"torchrun without MPI: exit {code}, stdout {out!r}, stderr {err!r}")

    # A learner whose agent is not there (died before it started); one
    # without torchrun's LOCAL_RANK.
    code, out, err = run({"LMDBIO_AGENT_SOCKET": "@lmdbio.agent.none", "LOCAL_RANK": "0"}, "-m", "lmdbio", "digest", path)
    if code != 1 or out or "cannot reach the lmdbio agent of this node" not in err:
        failures.append(f"no agent: exit {code}, stdout {out!r}, stderr {err!r}")
    code, out, err = run({"LMDBIO_AGENT_SOCKET": "@lmdbio.agent.none", "LOCAL_RANK": ""}, "-m", "lmdbio", "digest", path)
    if code != 2 or "LOCAL_RANK" not in err:
        failures.append(f"no LOCAL_RANK: exit {code}, stdout {out!r}, stderr {err!r}")

    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    print("python bad-input tests: " + ("ok" if not failures else f"{len(failures)} failures"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
