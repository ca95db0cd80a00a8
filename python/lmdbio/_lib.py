"""ctypes declarations of include/lmdbio.h and the search for liblmdbio.so."""

import ctypes
import ctypes.util
import os

# The ABI version of include/lmdbio.h these declarations follow; lmdbio_init
# refuses a library of another version.
ABI_VERSION = 2

OK, END_OF_EPOCH, DONE = 0, 1, 2
ERR_HANDLE, ERR_ARGUMENT, ERR_BUSY, ERR_VERSION, ERR_STATE = -1, -2, -3, -4, -5
ERR_LAUNCH, ERR_INPUT, ERR_RUNTIME, ERR_INTERNAL = -6, -7, -8, -9


class CBatch(ctypes.Structure):
    _fields_ = [
        ("count", ctypes.c_size_t),
        ("epoch", ctypes.c_int64),
        ("records", ctypes.POINTER(ctypes.c_int64)),
        ("keys", ctypes.POINTER(ctypes.c_void_p)),
        ("key_lens", ctypes.POINTER(ctypes.c_size_t)),
        ("values", ctypes.POINTER(ctypes.c_void_p)),
        ("value_lens", ctypes.POINTER(ctypes.c_size_t)),
        ("labels", ctypes.POINTER(ctypes.c_void_p)),
        ("label_lens", ctypes.POINTER(ctypes.c_size_t)),
    ]


class CImages(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("bytes", ctypes.c_size_t),
        ("shape", ctypes.c_int64 * 4),
        ("dtype", ctypes.c_int),
        ("chw", ctypes.c_int),
        ("labels", ctypes.c_void_p),
    ]


# lmdbio_images.dtype, by LMDBIO_DTYPE_* value: numpy's name of each.
DTYPES = {0: "uint8", 1: "float16", 2: "float32"}


class CLoaderInfo(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in ("records", "batches", "epochs", "batch", "epoch")]


class CTopology(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int) for name in
                ("rank", "size", "node", "nodes", "local_rank", "local_size")]


def find():
    """Returns the path of liblmdbio.so: $LMDBIO_LIB, else next to this
    package, else the source tree's lib/ (python/ run in place), else the
    system's library path."""
    env = os.environ.get("LMDBIO_LIB")
    if env:
        if not os.path.exists(env):
            raise ImportError(f"lmdbio: LMDBIO_LIB={env}: no such file")
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "liblmdbio.so"),
                      os.path.join(here, os.pardir, os.pardir, "lib", "liblmdbio.so")):
        if os.path.exists(candidate):
            return os.path.normpath(candidate)
    found = ctypes.util.find_library("lmdbio")
    if found:
        return found
    raise ImportError("lmdbio: liblmdbio.so not found: build it with `make lib` and set LMDBIO_LIB to its path")


def load(path):
    # RTLD_GLOBAL: Open MPI loads its plugins later, and they need the MPI
    # library's symbols, which liblmdbio brings in.
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    c_int, c_char_p, c_void_p, c_size_t = ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t
    declare = [
        ("lmdbio_version", c_char_p, []),
        ("lmdbio_abi_version", c_int, []),
        ("lmdbio_last_error", c_char_p, []),
        ("lmdbio_status_string", c_char_p, [c_int]),
        ("lmdbio_init", c_int, [c_int]),
        ("lmdbio_finalize", c_int, []),
        ("lmdbio_abort", c_int, [c_int, c_char_p]),
        ("lmdbio_get_topology", c_int, [ctypes.POINTER(CTopology)]),
        ("lmdbio_open", c_int, [c_char_p, c_char_p, ctypes.POINTER(c_void_p)]),
        ("lmdbio_open_resume", c_int, [c_char_p, c_char_p, c_char_p, ctypes.POINTER(c_void_p)]),
        ("lmdbio_next", c_int, [c_void_p, ctypes.POINTER(CBatch)]),
        ("lmdbio_info", c_int, [c_void_p, ctypes.POINTER(CLoaderInfo)]),
        ("lmdbio_batch_images", c_int, [c_void_p, ctypes.POINTER(CImages)]),
        ("lmdbio_state", c_int, [c_void_p, c_char_p, c_size_t, ctypes.POINTER(c_size_t)]),
        ("lmdbio_close", c_int, [c_void_p]),
        ("lmdbio_allreduce_sum_u64", c_int, [ctypes.POINTER(ctypes.c_uint64), c_size_t]),
    ]
    for name, restype, argtypes in declare:
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


# memory_view(address, length, flags) makes a memoryview of foreign memory
# without copying it (CPython's PyMemoryView_FromMemory).
memory_view = ctypes.pythonapi.PyMemoryView_FromMemory
memory_view.restype = ctypes.py_object
memory_view.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int]
PyBUF_READ, PyBUF_WRITE = 0x100, 0x200
