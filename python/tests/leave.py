"""A learner that leaves in the middle of the run without closing its
loader (os._exit skips the exit handlers that would close it), while the
others swallow the failure they are told of and wait. The agent job must
end all the same, within seconds, and say which learner left:

    lmdbio run --agent -N 2 --learners-per-node 2 -- python3 python/tests/leave.py DATASET
"""

import os
import sys
import time

import lmdbio

ld = lmdbio.Loader(sys.argv[1], batch=1, epochs=100)
try:
    for epoch in range(100):
        for n, b in enumerate(ld):
            if os.environ["RANK"] == "1" and n == 20:
                os._exit(0)
except lmdbio.Error:
    time.sleep(60)
