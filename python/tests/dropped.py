"""A loader dropped without close whose close fails (in __del__, where
nobody can catch it) must not let the process end with 0: it says the
failure in one line and exits 1. Here the close is made to fail on purpose;
run alone, with no launcher:

    python3 python/tests/dropped.py DATASET    (exits 1, "dropped: ran" on stdout)
"""

import gc
import sys

import lmdbio


def failing_close():
    raise lmdbio.RuntimeFailure(-8, "closing failed on purpose")


ld = lmdbio.Loader(sys.argv[1], batch=8)
ld.next()
ld.close = failing_close
del ld
gc.collect()
print("dropped: ran", flush=True)
