"""A learner that fails on one rank while the others go on: the job must
end within seconds, with one line that names the rank, its host and what
happened. HOW is raise-before (an uncaught exception before the loader
opens), raise-after (after its first batch), exit (sys.exit(1)),
interrupt (KeyboardInterrupt), early (os._exit(0) with the loader open) or
leave (sys.exit(0) with the loader open, in the middle of the run):

    lmdbio run -n 4 -N 2 -- python3 python/tests/fail.py DATASET HOW
"""

import os
import sys

import lmdbio

path, how = sys.argv[1], sys.argv[2]
rank = int(os.environ.get("RANK", os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0"))))
failing = rank == 1


def fail():
    if how in ("raise-before", "raise-after"):
        raise ValueError("a bad sample on purpose")
    if how == "exit":
        sys.exit(1)
    if how == "interrupt":
        raise KeyboardInterrupt
    if how == "early":
        os._exit(0)
    if how == "leave":
        sys.exit(0)


if failing and how == "raise-before":
    lmdbio.init()
    fail()
ld = lmdbio.Loader(path, batch=1, epochs=1000)
for epoch in range(1000):
    for n, b in enumerate(ld):
        if failing and n == 5:
            fail()
