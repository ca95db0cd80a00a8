"""The library's exit path survives a host that removed the thread's
alternate signal stack, as CPython's faulthandler does at shutdown: signals
keep arriving for the Go runtime (SIGURG, its preemption signal) while the
exit handlers call into lmdbio. Without a stack of its own the runtime
dies with "non-Go code disabled sigaltstack". It reads DATASET once with
HOW "finalize" (Python's exit handler finalises) or "c-exit" (the C
library's exit handler does), then exits 0 and prints "altstack: ok" first:

    python3 python/tests/altstack.py DATASET HOW
"""

import atexit
import ctypes
import os
import signal
import sys
import threading

import lmdbio

SS_DISABLE = 2


class StackT(ctypes.Structure):
    _fields_ = [("ss_sp", ctypes.c_void_p), ("ss_flags", ctypes.c_int), ("ss_size", ctypes.c_size_t)]


libc = ctypes.CDLL(None, use_errno=True)
main = threading.main_thread().ident
stop = threading.Event()
CALLS = 20000


def remove_signal_stack():
    """As faulthandler's shutdown does: no alternate stack on this thread.
    Then calls into lmdbio, as an exit handler may, many times, so that
    SIGURG arrives while Go code runs."""
    st = StackT(None, SS_DISABLE, 0)
    if libc.sigaltstack(ctypes.byref(st), None) != 0:
        raise OSError(ctypes.get_errno(), "sigaltstack")
    for _ in range(CALLS):
        lmdbio.topology()


def preempt():
    """SIGURG to the main thread, as the Go runtime's sysmon sends it."""
    while not stop.is_set():
        signal.pthread_kill(main, signal.SIGURG)


path, how = sys.argv[1], sys.argv[2]
ld = lmdbio.Loader(path, batch=16)
for b in ld:
    pass
if how == "c-exit":
    atexit.unregister(lmdbio._finalize_at_exit)  # leave it to the C library's handler
threading.Thread(target=preempt, daemon=True).start()
print("altstack: ok", flush=True)
# Registered last, so that it runs first: the stack is gone before lmdbio's
# exit handlers run, and SIGURG keeps coming while they do.
atexit.register(remove_signal_stack)
