"""lmdbio: batches of a dataset, for every process of a distributed training
job, from one reader per node through shared memory.

    import lmdbio

    for batch in lmdbio.Loader("/data/train_lmdb", batch=64):
        for key, value in batch:       # memoryviews into shared memory
            ...                        # valid until the next batch

Every process of the job is a learner. Run the program as an MPI job
(``lmdbio run -n 8 -- python3 train.py``): lmdbio initialises MPI unless the
program already did (e.g. mpi4py), and finalises it at exit. Or let lmdbio
start it as torchrun would, without MPI in the program (``lmdbio run --agent
-N 2 --learners-per-node 4 -- python3 train.py``): every node's agent reads
for its learners, which get torchrun's environment (RANK, LOCAL_RANK,
WORLD_SIZE, MASTER_ADDR, MASTER_PORT) for torch.distributed.

The binding is ctypes over the C library liblmdbio.so, found through
$LMDBIO_LIB, next to this package, or in the source tree's lib/.
"""

import atexit
import ctypes
import errno
import json
import os
import re
import sys

from . import _launch, _lib

__all__ = ["Loader", "Batch", "Error", "ArgumentError", "InputError", "NotFoundError", "LaunchError", "VersionError",
           "StateError", "HandleError", "BusyError", "RuntimeFailure", "InternalError",
           "init", "finalize", "topology", "allreduce_sum", "version"]

_c = _lib.load(_lib.find())

# The library's Go runtime started when it was loaded, in this process. A
# forked child (a DataLoader worker) has a copy of its memory but not its
# threads, and a call into it there waits for them forever.
_pid = os.getpid()


class Error(Exception):
    """A failure lmdbio reported; status is the C library's status code.

    The classes of the five kinds of failure (the C library's statuses
    LMDBIO_ERR_ARGUMENT, _INPUT, _LAUNCH, _RUNTIME and _INTERNAL) are also
    the builtin exceptions a Python program catches for them: ArgumentError
    is a ValueError, InputError an OSError (NotFoundError, for a dataset
    that is not there, a FileNotFoundError), LaunchError, RuntimeFailure and
    InternalError are RuntimeErrors. str(e) is the library's message.
    exit_status is what the lmdbio command exits with for it: 2 for bad
    input or usage, 1 for a failure at run time."""

    exit_status = 1

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message

    def __str__(self):
        return self.message


class ArgumentError(Error, ValueError):
    """An unknown option, a bad option value, a missing argument, an empty
    path."""

    exit_status = 2


class InputError(Error, OSError):
    """The dataset is missing, unreadable, corrupt or unsupported."""

    exit_status = 2


class NotFoundError(InputError, FileNotFoundError):
    """The dataset's path names nothing. errno is ENOENT and filename the
    path."""

    def __init__(self, status, message, path):
        super().__init__(status, message)
        self.errno, self.strerror, self.filename = errno.ENOENT, os.strerror(errno.ENOENT), path


class LaunchError(Error, RuntimeError):
    """The job was launched in a way lmdbio cannot work with (the message
    says how to launch it), or a launch setting (LMDBIO_RANKS_PER_NODE,
    LMDBIO_STARTUP_TIMEOUT) has a bad value."""

    exit_status = 2


class VersionError(Error):
    """The library is not of the version this binding was written for."""

    exit_status = 2


class StateError(Error):
    """lmdbio was finalised (or is not initialised), or is used from a
    forked process."""


class HandleError(Error):
    """The loader was closed."""


class BusyError(Error):
    """Another thread is inside a call on the same loader."""


class RuntimeFailure(Error, RuntimeError):
    """I/O, MPI or another rank failed."""


class InternalError(Error, RuntimeError):
    """A bug in lmdbio, caught before it could crash the process."""


# The exception of each status: the one table from the C library's statuses,
# and so from the kinds of failure that lmdbio.h's statuses stand for, to
# Python's classes. HandleError, BusyError, VersionError and StateError are
# the C API's own statuses for a caller's mistakes, finer than an argument.
_errors = {
    _lib.ERR_ARGUMENT: ArgumentError, _lib.ERR_INPUT: InputError, _lib.ERR_LAUNCH: LaunchError,
    _lib.ERR_RUNTIME: RuntimeFailure, _lib.ERR_INTERNAL: InternalError,
    _lib.ERR_HANDLE: HandleError, _lib.ERR_BUSY: BusyError, _lib.ERR_VERSION: VersionError,
    _lib.ERR_STATE: StateError,
}


def _check(status, path=None):
    """Raises the error of a negative status; returns the status otherwise.
    path is the dataset a call names: bad input while it names nothing is a
    NotFoundError."""
    if status < 0:
        message = _c.lmdbio_last_error().decode(errors="replace")
        cls = _errors.get(status, Error)
        if cls is InputError and path is not None and not os.path.lexists(path):
            raise NotFoundError(status, message, path)
        raise cls(status, message)
    return status


def _own():
    """Refuses a call into the library from a forked child (see _pid), before
    it can hang."""
    if os.getpid() != _pid:
        raise StateError(_lib.ERR_STATE, "a loader cannot be used from a forked process (e.g. a DataLoader "
                         "worker): use num_workers=0 (lmdbio already reads in the background)")


def version():
    """The C library's release, e.g. "0.1.0"."""
    return _c.lmdbio_version().decode()


_initialised = False


def init(abi_version=_lib.ABI_VERSION):
    """Joins or initialises MPI and discovers the job's topology, or, in a
    learner that lmdbio run --agent started, connects to the node's agent.
    Collective; the first Loader calls it. A job whose processes each see a
    world of one although the launcher started several (torchrun without an
    agent, srun without --mpi) is refused once for the whole job: its first
    process prints one line that says how to launch it (lmdbio run --agent
    --learners-per-node K -- COMMAND) and every process raises SystemExit
    with status 2, without a traceback. Raises LaunchError for a bad
    LMDBIO_RANKS_PER_NODE or LMDBIO_STARTUP_TIMEOUT.

    If MPI's start-up outlasts LMDBIO_STARTUP_TIMEOUT (3m by default), the
    process ends with exit status 1 and, on the job's first rank, one line
    on stderr, without raising
    and without its exit handlers: a call blocked in MPI cannot return (see
    lmdbio_init in include/lmdbio.h)."""
    global _initialised
    _own()
    try:
        _check(_c.lmdbio_init(abi_version))
    except LaunchError as e:
        if _launch.several_without_mpi():
            _launch.refuse(e)  # one line for the whole job, then SystemExit
        raise
    if not _initialised:
        _initialised = True
        _at_exit(_finalize_at_exit)


def finalize():
    """Closes every open loader and, if lmdbio initialised MPI, finalises it
    (a learner of an agent closes its connection). Collective; runs by
    itself at exit."""
    _own()
    _check(_c.lmdbio_finalize())


def _finalize_at_exit():
    if os.getpid() != _pid:  # a forked child leaves the library alone (see _own)
        return
    if _failing_exit():
        # The others may wait for this process in a collective call, and
        # finalising would wait for them: the library's own exit handler,
        # which sees the process's real exit status, aborts the job instead
        # (or finalises, if the SystemExit was caught after all).
        return
    try:
        finalize()
    finally:
        if _close_failure is not None:
            os._exit(1)  # the failure was said; the exit status must say it too


# Fail fast. A learner that fails while the others go on must end the job
# at once, as torchrun and `python -m mpi4py` do: the others wait for it in
# a collective call, and nothing else would end the job. An uncaught
# exception (KeyboardInterrupt too) aborts the job from sys.excepthook,
# after the previous hook has printed the traceback; sys.exit with a status
# other than 0 is left to the library's exit handler, which sees the exit
# status (Python's exit handlers do not). A program that catches its
# exceptions never gets here; nor does an interactive session, which goes
# on after one.

_exit_status = 0  # the status of the last sys.exit call


def _exiting(status=None):
    """sys.exit, recording the status it exits with."""
    global _exit_status
    _exit_status = status
    _sys_exit(status)


def _failing_exit():
    """Whether the process exits through sys.exit with a failing status.
    (A SystemExit that was caught leaves a stale status: the library's exit
    handler decides on the real one.)"""
    return _exit_status is not None and _exit_status != 0


def _abort(what):
    """Ends the job with one line that names this rank, its host and what
    (lmdbio_abort); returns when there is nothing to end."""
    if not _initialised or os.getpid() != _pid or hasattr(sys, "ps1") or sys.flags.interactive:
        return
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:  # a closed or broken stream must not stop the abort
            pass
    _c.lmdbio_abort(1, what.encode(errors="replace"))


def _open_checked(status, path):
    """_check for lmdbio_open, whose failure every rank gets: a program that
    exits of it does so on every rank, and needs no abort."""
    try:
        return _check(status, path=path)
    except Error as e:
        e.every_rank = True
        raise


_close_failure = None  # a failed close of a dropped loader, for the exit status


def _dropped_close_failed(path, e):
    """A loader dropped without close failed to close: the job ends, as for
    an uncaught exception; in a process alone, it exits 1 at the end."""
    global _close_failure
    what = f"a loader of {path} dropped without close failed to close: {type(e).__name__}: {e}"
    _abort(what)
    if _close_failure is None:
        _close_failure = what
        print(f"lmdbio: {what}", file=sys.stderr, flush=True)


def _excepthook(kind, value, tb):
    try:
        _previous_excepthook(kind, value, tb)
    finally:
        if not getattr(value, "every_rank", False):  # else every rank exits of it, and may finalise
            text = str(value)
            _abort(f"raised {kind.__name__}" + (f": {text}" if text else ""))


_sys_exit, _previous_excepthook = sys.exit, sys.excepthook
sys.exit, sys.excepthook = _exiting, _excepthook


def _at_exit(fn):
    """Runs fn at exit, after multiprocessing has ended its daemonic children
    (DataLoader workers): a forked child holds copies of the loaders'
    sockets, and closing a loader waits while it lives. multiprocessing's
    own exit handler, registered with atexit when it is imported, runs
    after ours if it was imported first (atexit runs the last first)."""
    util = sys.modules.get("multiprocessing.util")
    if util is None:
        atexit.register(fn)
    else:
        util.Finalize(None, fn, exitpriority=-1)  # run after the children are ended


def topology():
    """Where this process stands: a dict of rank, size, node, nodes,
    local_rank, local_size."""
    init()
    t = _lib.CTopology()
    _check(_c.lmdbio_get_topology(ctypes.byref(t)))
    return {name: getattr(t, name) for name, _ in t._fields_}


def allreduce_sum(values):
    """Returns the sums, modulo 2**64, of the non-negative integers in
    values over all ranks. Collective: every rank passes as many values."""
    init()
    arr = (ctypes.c_uint64 * len(values))(*values)
    _check(_c.lmdbio_allreduce_sum_u64(arr, len(values)))
    return list(arr)


class Batch:
    """One batch of a learner: len(batch) samples that iterate as (key,
    value) pairs of read-only memoryviews. labels holds each sample's label
    (an HDF5 file's labels dataset: the row's bytes; empty views without),
    records their record numbers and epoch the epoch.

    The views point into the node's shared memory without a copy, and are
    valid only until the loader's next batch: then they are released (using
    one raises ValueError). Views of views, such as numpy arrays made with
    np.frombuffer, cannot be released and must not be used after that
    either; copy what must live longer (bytes(value), array.copy()).

    With prep (Loader(path, prep=SPEC)), a batch holds the prepped samples
    instead of values: images is one numpy array of shape (B, H, W, C), or
    (B, C, H, W) with chw, of dtype uint8, float16 or float32, over the
    loader's memory without a copy (valid until the next batch); labels is
    an int64 numpy array of each Datum's label; keys are bytes; values is
    empty. A pipeline without a final crop (prep="decode", for Caffe) gives
    batches as without prep, whose values are decoded Datums.
    """

    __slots__ = ("epoch", "records", "keys", "values", "labels", "images", "_addresses", "_label_addresses",
                 "_image_address")

    def __init__(self, cb, images=None):
        n = cb.count
        self.epoch = cb.epoch
        self.records = cb.records[:n]
        self.images = self._image_address = None
        if images is not None:
            self.keys = [bytes(_view(cb.keys[i], cb.key_lens[i])) for i in range(n)]
            self.values, self._addresses, self._label_addresses = [], [], []
            self._prepped(images, n)
            return
        self.keys = [_view(cb.keys[i], cb.key_lens[i]) for i in range(n)]
        self.values = [_view(cb.values[i], cb.value_lens[i]) for i in range(n)]
        self.labels = [_view(cb.labels[i], cb.label_lens[i]) for i in range(n)]
        self._addresses = [(cb.values[i], cb.value_lens[i]) for i in range(n)]
        self._label_addresses = [(cb.labels[i], cb.label_lens[i]) for i in range(n)]

    def _prepped(self, ci, n):
        import numpy as np
        shape = tuple(ci.shape)
        dtype = np.dtype(_lib.DTYPES[ci.dtype])
        self._image_address = (ci.data, ci.bytes, shape, _lib.DTYPES[ci.dtype])
        self.images = np.frombuffer(_view(ci.data, ci.bytes), dtype=dtype).reshape(shape)
        self.labels = np.frombuffer(_view(ci.labels, 8 * n), dtype=np.int64) if n else np.empty(0, np.int64)

    def __len__(self):
        return len(self.records)

    def __iter__(self):
        return zip(self.keys, self.values)

    def arrays(self):
        """The values as read-only numpy uint8 arrays over the same memory
        (no copy), valid until the next batch."""
        import numpy as np
        return [np.frombuffer(v, dtype=np.uint8) for v in self.values]

    def _release(self):
        if self.images is not None:
            return  # numpy arrays hold the views, which cannot be released
        for view in self.keys + self.values + self.labels:
            try:
                view.release()
            except BufferError:  # a numpy array or another view holds it
                pass


def _view(address, length, flags=_lib.PyBUF_READ):
    if length == 0 or not address:
        return memoryview(b"")
    return _lib.memory_view(address, length, flags)


class Loader:
    """A learner's batches of the dataset at path (an LMDB directory or its
    data.mdb, or an HDF5 file), read by one reader per node and shared
    through memory.

    Opening is collective: every rank creates its Loader with the same path
    and options, and if any rank fails, every rank raises an Error of the
    same class (with its own message). Options are keywords, those of
    include/lmdbio.h and of the lmdbio command's flags with "_" for "-"
    (sizes as ints or strings such as "16MiB", booleans as True or False).
    Keywords (docs/options.md says more):
        batch, epochs, mode, remainder, shuffle, seed, chunk, chunk_window,
        locality, cache, views, dataset, labels, direct, stagger, window,
        prefetch, max_span, max_gap, io_depth, prep, prep_threads, resume

    resume is a state of Loader.state() (the JSON string, or its dict) or
    the path of a file that holds one, to continue that run.

    Iterating a Loader yields the batches of its next epoch (len(loader) of
    them, the same number on every rank); iterate again for the next epoch.
    After the last epoch iteration yields nothing. Each Batch is valid only
    until the next one is produced (see Batch). Use the loader from one
    thread at a time, in the process that opened it (not in a forked
    DataLoader worker); close it (or use it as a context manager) when done.
    """

    def __init__(self, path, batch=64, **options):
        state = None
        if "resume" in options:  # lmdbio_open_resume takes it apart from the option string
            state = _c_string("option resume", _resume(options.pop("resume")))
        words = _c_string("options", _options(dict(options, batch=batch)))
        self.path = os.fsdecode(path)
        cpath = _c_string(f"path {self.path!r}", path)
        init()
        handle = ctypes.c_void_p()
        _open_checked(_c.lmdbio_open_resume(cpath, words, state, ctypes.byref(handle)), self.path)
        self._handle, self._closed = handle, False
        self._current = None
        self.prep = options.get("prep") not in (None, "none")
        info = self._info()
        self.records, self.epochs, self.batch = info.records, info.epochs, info.batch

    def _info(self):
        _own()
        info = _lib.CLoaderInfo()
        _check(_c.lmdbio_info(self._handle, ctypes.byref(info)))
        return info

    def __len__(self):
        """Batches of the epoch the loader is in for this learner (the same
        on every rank; a resumed epoch has only those left)."""
        return self._info().batches

    @property
    def epoch(self):
        """The epoch the next batch belongs to (a resumed run starts in a
        later one)."""
        return self._info().epoch

    def state(self):
        """Where the run is, as a JSON string for Loader(..., resume=state):
        the epoch and the batches of it delivered so far. Every learner
        gets the same state after as many batches, so one may save it."""
        _own()
        size = ctypes.c_size_t()
        _check(_c.lmdbio_state(self._handle, None, 0, ctypes.byref(size)))
        buf = ctypes.create_string_buffer(size.value + 1)
        _check(_c.lmdbio_state(self._handle, buf, len(buf), ctypes.byref(size)))
        return buf.value.decode()

    def __iter__(self):
        while True:
            b = self.next()
            if b is None:
                return
            yield b

    def next(self):
        """The next batch of the current epoch, or None at its end."""
        _own()
        self._invalidate()
        cb = _lib.CBatch()  # the caller's own, as in C: another thread's call may be refused, not overwrite it
        status = _check(_c.lmdbio_next(self._handle, ctypes.byref(cb)))
        if status != _lib.OK:  # END_OF_EPOCH, DONE
            return None
        images = None
        if self.prep:
            images = _lib.CImages()
            _check(_c.lmdbio_batch_images(self._handle, ctypes.byref(images)))
            if not images.data and cb.count:
                images = None  # a pipeline without a final crop: values are decoded Datums
        self._current = Batch(cb, images)
        return self._current

    def _invalidate(self):
        if self._current is not None:
            self._current._release()
            self._current = None

    def close(self):
        """Ends this learner's part. Collective; a second call does nothing.
        A close refused with BusyError leaves the loader open: close again
        once the other thread is out of its call."""
        if getattr(self, "_handle", None) is None or self._closed:  # never opened, or closed
            return
        _own()
        self._invalidate()
        status = _c.lmdbio_close(self._handle)
        if status != _lib.ERR_HANDLE:  # closed already by finalize, or by a close that failed
            _check(status)
        # Only now: a refused close (BusyError) leaves the loader open, and
        # the next close must try again. The handle stays, so that the
        # library says "closed" when it is used.
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if sys.is_finalizing():
            # The exit handlers close what is left open; a collective close
            # here, while the interpreter shuts down after a failure, could
            # wait forever for ranks that wait for this one.
            return
        try:
            self.close()
        except Error as e:
            # Nobody can catch what __del__ raises (Python prints it and goes
            # on), and a learner whose close failed must not end with 0.
            _dropped_close_failed(self.path, e)
        except Exception:
            pass


# An option key of include/lmdbio.h, with "_" for "-".
_KEY = re.compile(r"[a-z0-9_-]+")


def _options(options):
    """The option string of lmdbio_open: key=value words, each of which must
    stay one option (lmdbio_open splits the string at spaces)."""
    for key in options:
        if not _KEY.fullmatch(key):
            raise ArgumentError(_lib.ERR_ARGUMENT,
                                f"option {key!r}: a key is a word of lowercase letters, digits, '-' and '_'")
    return " ".join(f"{k.replace('_', '-')}={_option_value(k, v)}" for k, v in options.items())


def _resume(v):
    """The resume state as lmdbio_open_resume takes it: the state document
    (from its JSON string or its dict), or the path of a file that holds
    one."""
    if isinstance(v, dict):
        return json.dumps(v, separators=(",", ":"))
    s = os.fsdecode(v) if isinstance(v, (bytes, os.PathLike)) else str(v)
    _c_string(f"option resume={s!r}", s)  # no NUL byte, and encodable
    if s.lstrip().startswith("{"):
        return _json_object("resume", s.strip())  # one object, nothing after it
    if not s or any(c.isspace() for c in s):
        raise ArgumentError(_lib.ERR_ARGUMENT, f"option resume={s!r}: the value must be one word")
    return s


def _option_value(key, v):
    if isinstance(v, bool):
        return "true" if v else "false"
    s = os.fsdecode(v) if isinstance(v, (bytes, os.PathLike)) else str(v)
    _c_string(f"option {key}={s!r}", s)  # no NUL byte, and encodable
    if not s or any(c.isspace() for c in s):
        raise ArgumentError(_lib.ERR_ARGUMENT, f"option {key}={s!r}: the value must be one word")
    if s.startswith("{"):  # lmdbio_open reads it as JSON, whatever the key
        return _json_object(key, s)
    return s


def _json_object(key, s):
    """s, if it is one JSON object and nothing more: lmdbio_open reads a value
    that starts with '{' up to the object's end, so what follows it would be
    read as more options, and an unfinished object would swallow them."""
    try:
        _, end = json.JSONDecoder().raw_decode(s)
    except json.JSONDecodeError as e:
        raise ArgumentError(_lib.ERR_ARGUMENT, f"option {key}: the value is not a JSON object: {e}") from None
    if end != len(s):
        raise ArgumentError(_lib.ERR_ARGUMENT, f"option {key}: {s[end:]!r} follows the JSON object")
    return s


def _c_string(what, s):
    """s (a str, bytes or path) as a C string, in the file system's encoding
    as os.fsencode makes it; a NUL byte would end it early, and is refused."""
    try:
        b = os.fsencode(s)
    except UnicodeEncodeError as e:
        raise ArgumentError(_lib.ERR_ARGUMENT, f"{what}: cannot be encoded: {e.reason}") from None
    if b"\0" in b:
        raise ArgumentError(_lib.ERR_ARGUMENT, f"{what}: holds a NUL byte")
    return b
