"""Checks of the Python binding's answers to misuse: each is an exception of
the right class with the C library's one-line message (or the binding's,
for what it refuses before calling the library: strings the C library
would misread, a call from a forked process), never a crash or a hang. It
runs as one process, which starts others: for launch settings, which fail
lmdbio.init for good, and, with mpirun, 2 ranks that must agree.

    python3 python/tests/badinput.py DATASET
"""

import errno
import importlib.util
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import threading
import time

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
    return run_argv(env, [sys.executable, *args])


def run_argv(env, argv):
    """Runs argv with env added; returns (exit status, stdout, stderr), the
    MPI runtime's own log lines taken out of stderr (see mpi_runtime_line)."""
    p = subprocess.run(argv, env=dict(os.environ, **env), capture_output=True, text=True, timeout=60)
    err = "".join(l for l in p.stderr.splitlines(keepends=True) if not mpi_runtime_line(l))
    return p.returncode, p.stdout, err


def mpi_runtime_line(line):
    """Whether line is a log line of Open MPI's runtime ("[host:pid] ..."),
    not lmdbio's: a process that MPI started as a singleton has a daemon of
    its own, which shares its stderr and, on a loaded machine, logged errors
    (a broken pipe, its session directory gone) when a start-up past its
    limit ended the process, before or after the process's line."""
    host, sep, rest = line.partition("] ")
    return line.startswith("[") and bool(sep) and ":" in host and host.rsplit(":", 1)[1].isdigit()


# The lmdbio command of the source tree, when it was built: the library
# must say what it says.
LMDBIO_CMD = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "bin", "lmdbio")


def launch_settings(path):
    """A bad launch setting is a LaunchError, and python3 -m lmdbio exits 2
    with one line naming it, as the lmdbio command does. A start-up that
    outlasts LMDBIO_STARTUP_TIMEOUT ends the process with the command's
    line and exit status 1, without a traceback or the exit handlers: a
    call blocked in MPI_Init cannot raise."""
    init = "import lmdbio\ntry:\n    lmdbio.init()\nexcept lmdbio.Error as e:\n    print(type(e).__name__, e)\n"
    for var, value in (("LMDBIO_STARTUP_TIMEOUT", "soon"), ("LMDBIO_RANKS_PER_NODE", "0")):
        env = {var: value}
        code, out, err = run(env, "-c", init)
        if code != 0 or not out.startswith(f'LaunchError {var}="{value}"'):
            failures.append(f"{var}={value}: exit {code}, stdout {out!r}, stderr {err.strip()[-300:]!r}")
        code, out, err = run(env, "-m", "lmdbio", "digest", path)
        if code != 2 or out or len(err.splitlines()) != 1 or not err.startswith(f"lmdbio: {var}="):
            failures.append(f"python3 -m lmdbio digest with {var}={value}: exit {code}, stdout {out!r}, stderr {err!r}")
        same_as_command(env, code, err)
    prog = "import atexit, lmdbio\natexit.register(print, 'exit handler ran')\nlmdbio.init()\nprint('init returned')\n"
    env = {"LMDBIO_STARTUP_TIMEOUT": "1ns"}
    code, out, err = run(env, "-c", prog)
    if code != 1 or out or len(err.splitlines()) != 1 or not err.startswith("lmdbio: MPI did not finish starting in 1ns: "):
        failures.append(f"a start-up past its limit: exit {code}, stdout {out!r}, stderr {err!r}")
    same_as_command(env, code, err)


def same_as_command(env, code, err):
    """The lmdbio command, in env, exits with code and says err too."""
    if not os.path.exists(LMDBIO_CMD):
        print("note: no bin/lmdbio; the library's lines are not compared with the command's", file=sys.stderr)
        return
    got = run_argv(env, [LMDBIO_CMD, "topology"])
    if (got[0], got[2]) != (code, err):
        failures.append(f"with {env}, the library exits {code} with {err!r}, the command {got[0]} with {got[2]!r}")


# Each rank opens with its own options and prints the class of what it got
# when that is not the class every rank must get.
_RANKS = """
import sys, lmdbio
rank = lmdbio.topology()["rank"]
cases = [({}, {"resume": "/nonexistent/state.json"}, "InputError"),
         ({"colour": "blue"}, {}, "ArgumentError"),
         ({"dataset": "images"}, {"dataset": "images"}, "ArgumentError")]
for first, others, want in cases:
    try:
        lmdbio.Loader(sys.argv[1], batch=3, **(first if rank == 0 else others)).close()
        got = "no error"
    except lmdbio.Error as e:
        got = type(e).__name__
    if got != want:
        print(f"rank {rank}: {first} on rank 0, {others} on the others: {got}, want {want}")
"""


def ranks_agree(path):
    """A failed open raises the same class on every rank, whichever rank
    found the fault: a missing resume file on rank 1 is an InputError on
    rank 0 too, and a bad option that rank 0 finds an ArgumentError on
    rank 1 too."""
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("note: no mpirun; the check on 2 ranks is skipped", file=sys.stderr)
        return
    env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    code, out, err = run_argv(env, [mpirun, "--oversubscribe", "-np", "2", sys.executable, "-c", _RANKS, path])
    if code != 0 or out:
        failures.append(f"2 ranks: exit {code}, stdout {out!r}, stderr {err.strip()[-300:]!r}")


def builtin_classes(path):
    """Every status of the C library has its class, and the classes of the
    five kinds of failure are the builtins a Python program catches: a bad
    argument a ValueError, bad input an OSError (a dataset that is not there
    a FileNotFoundError), a failure at run time a RuntimeError."""
    builtins = {_lib.ERR_ARGUMENT: ValueError, _lib.ERR_INPUT: OSError, _lib.ERR_LAUNCH: RuntimeError,
                _lib.ERR_RUNTIME: RuntimeError, _lib.ERR_INTERNAL: RuntimeError}
    statuses = {v for k, v in vars(_lib).items() if k.startswith("ERR_")}
    if set(lmdbio._errors) != statuses:
        failures.append(f"statuses without a class: {statuses ^ set(lmdbio._errors)}")
    for status, cls in lmdbio._errors.items():
        if not issubclass(cls, lmdbio.Error) or (status in builtins and not issubclass(cls, builtins[status])):
            failures.append(f"status {status}: {cls.__mro__}, want lmdbio.Error and {builtins.get(status)}")
    missing = "/nonexistent/dataset"
    expect(ValueError, '"colour"', lmdbio.Loader, path, colour="blue")
    expect(FileNotFoundError, missing, lmdbio.Loader, missing)
    try:
        lmdbio.Loader(missing)
    except lmdbio.NotFoundError as e:
        if (e.errno, e.filename, e.status, str(e).count("[Errno")) != (errno.ENOENT, missing, _lib.ERR_INPUT, 0):
            failures.append(f"Loader({missing!r}): errno {e.errno}, filename {e.filename!r}, status {e.status}: {e}")
    expect(OSError, __file__, lmdbio.Loader, __file__)
    try:
        lmdbio.Loader(__file__)
    except FileNotFoundError as e:
        failures.append(f"Loader({__file__!r}), a file that is there: {type(e).__name__}({e})")
    except lmdbio.InputError:
        pass


def bad_strings(path):
    """Strings lmdbio_open would read otherwise than they were meant: a NUL
    byte ends a C string early, a key or value with a space or '=' adds
    options, a JSON value (resume) runs on into more options or swallows
    them. Paths as bytes or path objects are the same path."""
    expect(lmdbio.ArgumentError, "NUL", lmdbio.Loader, path + "\0junk")
    expect(lmdbio.ArgumentError, "NUL", lmdbio.Loader, os.fsencode(path) + b"\0junk")
    expect(lmdbio.ArgumentError, "NUL", lmdbio.Loader, path, batch=50, seed="7\0", epochs=3)
    expect(lmdbio.ArgumentError, "NUL", lmdbio.Loader, path, dataset=b"data\0")
    expect(lmdbio.ArgumentError, "a key is a word", lmdbio.Loader, path, **{"epochs=2 shuffle": "global"})
    expect(lmdbio.ArgumentError, "a key is a word", lmdbio.Loader, path, **{"seed\0": 1})
    expect(lmdbio.ArgumentError, "a key is a word", lmdbio.Loader, path, **{"": 1})
    expect(lmdbio.ArgumentError, "one word", lmdbio.Loader, path, seed="1\tepochs=2")
    expect(lmdbio.ArgumentError, "follows the JSON object", lmdbio.Loader, path, resume='{"epoch": 0} epochs=2')
    expect(lmdbio.ArgumentError, "not a JSON object", lmdbio.Loader, path, seed='{"a":"', shuffle='"}')
    expect(lmdbio.ArgumentError, "cannot be encoded", lmdbio.Loader, path, seed="\ud800")
    expect(TypeError, "os.PathLike", lmdbio.Loader, 5)
    for p in (os.fsencode(path), pathlib.Path(path)):
        try:
            with lmdbio.Loader(p, batch=3) as ld:
                got = ld.path, ld.next() is not None
        except lmdbio.Error as e:
            got = e
        if got != (os.fsdecode(p), True):
            failures.append(f"Loader({p!r}): {got}, want path {os.fsdecode(p)!r} with batches")


class BusyOnce:
    """The C library, with its first lmdbio_close refused as busy (as one is
    while another thread is inside lmdbio_next on the loader)."""

    def __init__(self, c):
        self.c, self.refused = c, False

    def __getattr__(self, name):
        return getattr(self.c, name)

    def lmdbio_close(self, handle):
        if self.refused:
            return self.c.lmdbio_close(handle)
        self.refused = True
        return _lib.ERR_BUSY


def close_busy(path):
    """A close refused with BusyError leaves the loader open, and the next
    close closes it: first with a refusal made up, then a real one, from a
    thread inside next() (which may take a few tries to meet)."""
    real, lmdbio._c = lmdbio._c, BusyOnce(lmdbio._c)
    try:
        ld = lmdbio.Loader(path, batch=3)
        expect(lmdbio.BusyError, "", ld.close)
    finally:
        lmdbio._c = real
    check_closes(ld, "a made-up busy close")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        ld = lmdbio.Loader(path, batch=1, epochs=100000, mode="lmdb")
        stop = threading.Event()
        spinner = threading.Thread(target=spin, args=(ld, stop))
        spinner.start()
        time.sleep(0.01)
        try:
            ld.close()
        except lmdbio.BusyError:
            stop.set()
            spinner.join()
            check_closes(ld, "a busy close")
            return
        stop.set()
        spinner.join()
    print("note: close never found the loader busy; only the made-up refusal was checked", file=sys.stderr)


def spin(ld, stop):
    while not stop.is_set():
        try:
            ld.next()
        except lmdbio.BusyError:
            pass
        except lmdbio.HandleError:
            return


def check_closes(ld, what):
    """ld, whose close was refused, is open still; its next close closes it.
    Open, its next() returns a batch, or None once if the other thread took
    the last batch of an epoch: the call after that starts the next one."""
    if ld._closed or ld.next() is None and ld.next() is None:
        failures.append(f"after {what}, the loader is not open: closed {ld._closed}")
    ld.close()
    expect(lmdbio.HandleError, "closed", ld.next)


def forked(path):
    """A forked child (as a DataLoader worker is) gets StateError from every
    call, at once, instead of hanging in the Go runtime that stayed in the
    parent, and exits normally (through __del__ and the exit handlers)
    without hanging either. The parent reads on."""
    ld = lmdbio.Loader(path, batch=3)
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        failures.clear()
        calls = (ld.next, ld.state, ld.__len__, ld.close, lmdbio.topology, lmdbio.finalize,
                 lambda: lmdbio.Loader(path))
        for call in calls:
            expect(lmdbio.StateError, "forked process", call)
        for f in failures:
            print(f"FAIL forked child: {f}", file=sys.stderr)
        sys.exit(1 if failures else 0)
    code = wait(pid, 30)
    if code != 0:
        failures.append("a forked child hangs (killed after 30 s)" if code is None else f"a forked child exited {code}")
    if ld.next() is None:
        failures.append("the parent of a forked child reads nothing")
    ld.close()


def wait(pid, seconds):
    """The exit code of the child pid, or None if it still runs after seconds
    (then it is killed)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


def dataloader_worker(path, method="fork"):
    """A DataLoader worker over lmdbio.torch.Dataset (a forked process, or a
    spawned one the Dataset is pickled for) fails at once and says why,
    instead of hanging or failing on ctypes' pickling."""
    if importlib.util.find_spec("torch") is None:
        print("note: no torch; the DataLoader worker check is skipped", file=sys.stderr)
        return
    prog = ("import sys, torch.utils.data, lmdbio.torch\n"
            "ds = lmdbio.torch.Dataset(sys.argv[1], batch=10)\n"
            "for _ in torch.utils.data.DataLoader(ds, batch_size=None, num_workers=1, "
            "multiprocessing_context=sys.argv[2]): pass\n")
    # A session of its own, to kill the worker too: a hung worker would
    # hold the pipes open.
    p = subprocess.Popen([sys.executable, "-c", prog, path, method], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        failures.append(f"a DataLoader with num_workers=1 ({method}) hangs (killed after 60 s)")
        return
    code = p.returncode
    if code == 0 or "StateError" not in err or "num_workers=0" not in err or "pickled" in err:
        failures.append(f"a DataLoader with num_workers=1 ({method}): exit {code}, stdout {out!r}, stderr {err.strip()[-300:]!r}")


def main(path):
    expect(lmdbio.VersionError, "ABI version", lmdbio.init, _lib.ABI_VERSION + 1)
    expect(lmdbio.ArgumentError, '"colour"', lmdbio.Loader, path, colour="blue")
    expect(lmdbio.ArgumentError, "batch=0", lmdbio.Loader, path, batch=0)
    expect(lmdbio.ArgumentError, "one word", lmdbio.Loader, path, mode="lmm dio")
    expect(lmdbio.ArgumentError, "the path is empty", lmdbio.Loader, "")
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

    builtin_classes(path)
    # Every option of the registry is a keyword, views included.
    for views in ("on", "off", "auto"):
        with lmdbio.Loader(path, batch=3, views=views) as ld:
            if ld.next() is None:
                failures.append(f"views={views}: no batch")
    expect(lmdbio.ArgumentError, "views=sometimes", lmdbio.Loader, path, views="sometimes")

    bad_strings(path)
    launch_settings(path)
    ranks_agree(path)
    close_busy(path)
    forked(path)
    for method in ("fork", "spawn", "forkserver"):
        dataloader_worker(path, method)

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
    # Under torchrun without MPI the job's first process says how to launch
    # it, in one line without a traceback; the others exit quietly with the
    # same status.
    torchrun = {"WORLD_SIZE": "4", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "4"}
    code, out, err = run(dict(torchrun, RANK="0"), "-m", "lmdbio", "digest", path)
    lines = err.strip().splitlines()
    if code != 2 or out or len(lines) != 1 or "lmdbio run -n 4 -- " not in lines[0]:
        failures.append(f"torchrun without MPI: exit {code}, stdout {out!r}, stderr {err!r}")
    script = f"import lmdbio\nfor batch in lmdbio.Loader({path!r}): pass\n"
    code, out, err = run(dict(torchrun, RANK="0"), "-c", script)
    lines = err.strip().splitlines()
    if (code != 2 or out or len(lines) != 1 or "Traceback" in err
            or "lmdbio run --agent --learners-per-node 4 -- COMMAND" not in lines[0]):
        failures.append(f"torchrun without MPI, first process: exit {code}, stdout {out!r}, stderr {err!r}")
    code, out, err = run(dict(torchrun, RANK="1", LOCAL_RANK="1"), "-c", script)
    if code != 2 or out or err.strip():
        failures.append(f"torchrun without MPI, another process: exit {code}, stdout {out!r}, stderr {err!r}")

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
