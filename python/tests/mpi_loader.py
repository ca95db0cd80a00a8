"""Multi-rank checks of the Python binding; run every rank of it under
mpirun, or as the learners of lmdbio run --agent (examples/test.sh runs 4
learners on 2 virtual nodes both ways):

    mpirun -np 4 -x LMDBIO_RANKS_PER_NODE=2 python3 python/tests/mpi_loader.py DATASET
    lmdbio run --agent -N 2 --learners-per-node 2 -- python3 python/tests/mpi_loader.py DATASET

The dataset is read independently with py-lmdb (liblmdb) for the expected
keys and values. Checks: lmdbio.Loader delivers every record exactly once
per epoch, in the file's order and globally shuffled, with its own key and
value, as zero-copy read-only views that are released at the next batch,
the same number of batches on every rank, also with two loaders open at once; lmdbio.torch.Dataset under a
DataLoader gives every rank len(ds) batches and every record once, or
twice where the last round is padded; under an agent, torch.distributed
(gloo) starts from the environment the agent gave. Exits non-zero on any
rank's failure.
"""

import functools
import hashlib
import os
import sys

import lmdb
import numpy as np
import torch.utils.data

import lmdbio
import lmdbio.torch

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def expected_records(path):
    """(key, sha256(value)) of every record, in the database's order."""
    env = lmdb.open(path, readonly=True, lock=False, subdir=True)
    with env.begin() as txn:
        out = [(bytes(k), hashlib.sha256(v).digest()) for k, v in txn.cursor()]
    env.close()
    return out


def check_loader(path, expected, size, **options):
    n = len(expected)
    with lmdbio.Loader(path, batch=7, epochs=2, remainder="keep", **options) as ld:
        check(ld.records == n and ld.epochs == 2 and ld.batch == 7, f"loader info {ld.records} {ld.epochs} {ld.batch}")
        for epoch in range(2):
            seen, batches, old = [0] * n, 0, None
            for b in ld:
                if old is not None:
                    try:
                        bytes(old)
                        check(False, "a view of the previous batch was not released")
                    except ValueError:
                        pass
                batches += 1
                check(b.epoch == epoch, f"batch of epoch {b.epoch} in epoch {epoch}")
                for r, (k, v) in zip(b.records, b):
                    seen[r] += 1
                    check(isinstance(v, memoryview) and v.readonly, "value is not a read-only memoryview")
                    check(bytes(k) == expected[r][0], f"record {r}: key {bytes(k)!r}")
                    check(hashlib.sha256(v).digest() == expected[r][1], f"record {r}: wrong value")
                if len(b):
                    arr = b.arrays()[0]
                    check(arr.__array_interface__["data"][0] == b._addresses[0][0] and not arr.flags.writeable,
                          "Batch.arrays copied the value or made it writable")
                    old = b.values[0]
            check(batches == len(ld), f"epoch {epoch}: {batches} batches, len(loader) {len(ld)}")
            counts = lmdbio.allreduce_sum(seen)
            check(all(c == 1 for c in counts),
                  f"epoch {epoch}: {sum(c == 0 for c in counts)} records missed, {sum(c > 1 for c in counts)} repeated")
            check(lmdbio.allreduce_sum([batches]) == [batches * size], "ranks got different numbers of batches")
        check(ld.next() is None and list(ld) == [], "batches after the last epoch")


def check_torch(path, expected, size):
    index = {k: i for i, (k, _) in enumerate(expected)}
    seen = [0] * len(expected)
    ds = lmdbio.torch.Dataset(path, batch=5)
    items = 0
    for keys, values in torch.utils.data.DataLoader(ds, batch_size=None):
        items += 1
        check(len(keys) == 5, f"a padded batch of {len(keys)} records")
        for k, v in zip(keys, values):
            i = index[k]
            seen[i] += 1
            check(v.dtype == torch.uint8 and hashlib.sha256(v.numpy()).digest() == expected[i][1],
                  f"torch: record {i}: wrong value")
    check(items == len(ds), f"torch: {items} batches, len(ds) {len(ds)}")
    counts = lmdbio.allreduce_sum(seen)
    # The default remainder pads the last round with records from the start.
    check(min(counts) == 1 and max(counts) <= 2, f"torch: records delivered {min(counts)} to {max(counts)} times")
    check(sum(counts) == len(ds) * size * 5, f"torch: {sum(counts)} records, want {len(ds) * size * 5}")
    ds.close()


def check_two_at_once(path, expected, size):
    """Two loaders open at once (a training and a validation set), read in
    turns: each delivers every record once."""
    n = len(expected)
    train = lmdbio.Loader(path, batch=4, remainder="keep", shuffle="global", seed=5)
    val = lmdbio.Loader(path, batch=9, remainder="keep")
    seen = {"train": [0] * n, "val": [0] * n}
    live = {"train": train, "val": val}
    while live:
        for name, ld in list(live.items()):
            b = ld.next()
            if b is None:
                del live[name]
                continue
            for r in b.records:
                seen[name][r] += 1
    train.close()
    val.close()
    for name, counts in seen.items():
        counts = lmdbio.allreduce_sum(counts)
        check(all(c == 1 for c in counts), f"two loaders at once: {name}: not every record once")


def check_ddp(top):
    """Under an agent: torch.distributed meets through torchrun's variables,
    and numbers the learners as lmdbio does."""
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method="env://")
    try:
        t = torch.tensor([top["rank"] + 1])
        dist.all_reduce(t)
        size = top["size"]
        check(dist.get_rank() == top["rank"] and dist.get_world_size() == size,
              f"torch.distributed: rank {dist.get_rank()} of {dist.get_world_size()}, lmdbio: {top['rank']} of {size}")
        check(int(t) == size * (size + 1) // 2, f"torch.distributed: all_reduce gave {int(t)}")
    finally:
        dist.destroy_process_group()


def main(path):
    expected = expected_records(path)
    top = lmdbio.topology()
    check(np.uint8 is not None, "numpy")
    shuffled = functools.partial(check_loader, shuffle="global", seed=3)
    shuffled.__name__ = "check_loader(shuffle=global)"
    for run in (check_loader, shuffled, check_torch, check_two_at_once):
        try:
            run(path, expected, top["size"])
        except Exception as e:  # noqa: BLE001: report, and let every rank finish
            check(False, f"{run.__name__}: {type(e).__name__}: {e}")
    if "LMDBIO_AGENT_SOCKET" in os.environ:
        check_ddp(top)
    for f in failures[:10]:
        print(f"rank {top['rank']}: FAIL {f}", file=sys.stderr)
    failed = lmdbio.allreduce_sum([len(failures)])[0]
    if top["rank"] == 0:
        print(f"python mpi tests on {top['size']} ranks, {top['nodes']} nodes: "
              + ("ok" if failed == 0 else f"{failed} failures"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
