"""In-place writes are safe: every learner normalises every value tensor of
lmdbio.torch in place, for 3 epochs (the later ones served from the node
cache), and each epoch's digest is still the dataset's, as `lmdbio digest`
gives it: no learner's write reaches another learner or a later epoch, and
none crashes. The zero-copy views refuse a write with a Python exception.
Run every rank of it as an MPI job or as the learners of an agent; rank 0
prints "inplace: ok" (and each epoch's digest line before it):

    lmdbio run -n 4 -N 2 -- python3 python/tests/inplace.py DATASET
"""

import hashlib
import sys

import torch

import lmdbio
import lmdbio.torch

EPOCHS = 3
MASK = (1 << 64) - 1


def record_hash(key, value):
    h = hashlib.sha256(key)
    h.update(value)
    return int.from_bytes(h.digest()[:8], "little")


def main(path):
    ds = lmdbio.torch.Dataset(path, batch=16, epochs=EPOCHS, remainder="keep", shuffle="global")
    rank = lmdbio.topology()["rank"]
    for epoch in range(EPOCHS):
        records = size = total = 0
        for keys, values in ds:
            for key, v in zip(keys, values):
                total += record_hash(key, v.numpy().tobytes())
                records += 1
                size += len(v)
                if len(v):  # normalise in place, as training code does
                    v.sub_(v.min())
                    v[0] = 255
                    v.add_(1)
        records, size, total = lmdbio.allreduce_sum([records, size, total & MASK])
        if rank == 0:
            print(f"epoch={epoch} records={records} bytes={size} digest={total:016x}", flush=True)
    ds.close()

    # The zero-copy views are read-only: a write raises, never crashes.
    with lmdbio.Loader(path, batch=4, epochs=1) as ld:
        b = ld.next()
        for what, write in (("memoryview", lambda: b.values[0].__setitem__(0, 1)),
                            ("numpy array", lambda: b.arrays()[0].__setitem__(0, 1))):
            try:
                write()
            except (TypeError, ValueError):
                continue
            sys.exit(f"inplace: a write to a batch's {what} did not raise")
        for _ in ld:
            pass
    if rank == 0:
        print("inplace: ok", flush=True)


if __name__ == "__main__":
    torch.set_num_threads(1)
    main(sys.argv[1])
