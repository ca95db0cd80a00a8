#!/usr/bin/python3
"""Peer baseline: PyTorch DataLoader over py-lmdb, the common recipe.

The keys are listed once in the main process with a cursor that touches keys
only (index_s). A map-style Dataset opens the LMDB lazily in each worker and
fetches records by key; a shuffling DataLoader batches them with a collate
function that keeps the bytes. The main process consumes every batch as
lmdbio's learners do (--consumer sha256: the digest of `lmdbio digest`, which
must come out equal; touch: a byte in every page of every value).

    /usr/bin/python3 bench/peers/torch_lmdb.py DATASET [--workers 8] [--readahead off] [--epochs 3]

With --rank R --world N it is one process of a DistributedDataParallel job:
it reads rank R's share of each epoch's order as DistributedSampler deals it
(every N-th index of the epoch's permutation, from R), with its own workers,
and prints that share's line; the caller starts all N and sums their lines.
Unlike DistributedSampler it does not pad the shares to equal length, so the
job reads every record exactly once per epoch, as lmdbio does.

Prints one JSON line on stdout (schema in README.md). Exit status: 0 success,
1 a runtime failure, 2 bad flags or a dataset that is not an LMDB.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import platform
import sys
import time
import warnings
from typing import Any, Callable

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

import lmdb  # noqa: E402
import torch  # noqa: E402
from torch.utils.data import DataLoader, Dataset, Sampler  # noqa: E402

from _common import (  # noqa: E402
    EXIT_RUNTIME, EXIT_USAGE, Clock, EpochLog, Tally, UsageError, add_common_flags, add_epoch_flags,
    add_share_flags, check_share_flags, consumer_function, fail, new_parser, non_negative_int, one_line,
    open_env, result_line)

PEER = "torch_lmdb"


class LmdbDataset(Dataset):
    """Records of an LMDB by position in a key list, read with py-lmdb.

    The environment is opened on first use in each process: an LMDB
    environment must not cross a fork, and DataLoader forks its workers.
    """

    def __init__(self, path: str, keys: list[bytes], readahead: bool) -> None:
        self.path = path
        self.keys = keys
        self.readahead = readahead
        self.env: Any = None

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, i: int) -> tuple[bytes, bytes]:
        if self.env is None:
            self.env = open_env(self.path, self.readahead)
        key = self.keys[i]
        with self.env.begin(write=False) as txn:
            value = txn.get(key)
        if value is None:
            raise KeyError(f"{self.path}: key {key!r} listed but not found")
        return key, value


class ShareSampler(Sampler):
    """Rank's share of each epoch's order, dealt as DistributedSampler deals
    it (a permutation drawn from seed + epoch, every world-th index from
    rank), without its padding. set_epoch picks the epoch, as in DDP loops."""

    def __init__(self, n: int, rank: int, world: int, shuffle: bool, seed: int) -> None:
        self.n, self.rank, self.world = n, rank, world
        self.shuffle, self.seed, self.epoch = shuffle, seed, 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __iter__(self):
        if self.shuffle:
            g = torch.Generator()
            g.manual_seed(self.seed + self.epoch)
            order = torch.randperm(self.n, generator=g).tolist()
        else:
            order = list(range(self.n))
        return iter(order[self.rank::self.world])

    def __len__(self) -> int:
        return len(range(self.rank, self.n, self.world))


def collate_bytes(samples: list[tuple[bytes, bytes]]) -> tuple[list[bytes], list[bytes]]:
    """Keep a batch as lists of bytes (the default collate would fail on bytes)."""
    return [k for k, _ in samples], [v for _, v in samples]


def collate_consumed(consume: Callable[[bytes, bytes], int],
                     samples: list[tuple[bytes, bytes]]) -> tuple[list[bytes], list[bytes], list[int]]:
    """Like collate_bytes, plus each record's consumer result, computed in the worker."""
    keys, values = collate_bytes(samples)
    return keys, values, [consume(k, v) for k, v in zip(keys, values)]


def init_worker(_worker_id: int) -> None:
    """Keep each worker to one intra-op thread, as training scripts do."""
    torch.set_num_threads(1)


def list_keys(path: str, readahead: bool, limit: int | None) -> list[bytes]:
    """List the keys in key order with a cursor that does not touch values."""
    env = open_env(path, readahead)
    try:
        with env.begin(write=False) as txn:
            keys = txn.cursor().iternext(keys=True, values=False)
            return list(itertools.islice(keys, limit))
    finally:
        env.close()  # the workers open their own after the fork


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Parse the command line."""
    p = new_parser(PEER, __doc__ or "")
    add_common_flags(p)
    p.add_argument("--workers", type=non_negative_int, default=8,
                   help="DataLoader worker processes; 0 reads in the main process (default 8)")
    add_epoch_flags(p)
    p.add_argument("--index-readahead", choices=("same", "on", "off"), default="same",
                   help="readahead of the key listing (default: same as --readahead). With "
                        "readahead on, the listing's page faults can pull most of the file into "
                        "the page cache, warming the epoch that follows")
    p.add_argument("--hash-in-workers", action="store_true",
                   help="run the consumer in the workers instead of the main process; values still "
                        "travel to the main process (default: consume in main, where a training loop does)")
    add_share_flags(p, "one process of a DDP job: read this rank's share of every epoch (with --world)",
                    "the number of processes of the DDP job (with --rank)")
    args = p.parse_args(argv)
    check_share_flags(p, args)
    return args


def run(args: argparse.Namespace, clock: Clock) -> str:
    """Read the epochs and return the result line."""
    # More workers than cores is the configuration under test, not a mistake:
    # keep DataLoader's advice about it out of the benchmark's logs.
    warnings.filterwarnings("ignore", message="This DataLoader will create")
    readahead = args.readahead == "on"
    t = time.perf_counter()
    index_readahead = readahead if args.index_readahead == "same" else args.index_readahead == "on"
    keys = list_keys(args.path, index_readahead, args.records)
    index_s = time.perf_counter() - t

    torch.set_num_threads(1)
    gen = torch.Generator()
    gen.manual_seed(args.seed)
    sampler = None
    if args.rank is not None:
        sampler = ShareSampler(len(keys), args.rank, args.world, args.shuffle == "on", args.seed)
    loader = DataLoader(
        LmdbDataset(args.path, keys, readahead),
        batch_size=args.batch,
        shuffle=args.shuffle == "on" and sampler is None,
        sampler=sampler,
        num_workers=args.workers,
        collate_fn=(functools.partial(collate_consumed, consumer_function(args.consumer))
                    if args.hash_in_workers else collate_bytes),
        persistent_workers=False,
        worker_init_fn=init_worker,
        generator=gen,
    )

    tally = Tally(consumer=args.consumer)
    log = EpochLog(tally, clock)
    clock.loop_start = time.perf_counter()  # iter(loader) forks the workers: part of every epoch
    for epoch in range(args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        for batch in log.batches(epoch, loader):  # a new order each epoch, drawn from gen
            if args.hash_in_workers:
                _, values, results = batch
                for d, v in zip(results, values):
                    tally.add_consumed(d, len(v))
            else:
                for k, v in zip(*batch):
                    tally.add(k, v)

    config = {
        "workers": args.workers,
        "batch": args.batch,
        "readahead": args.readahead,
        "index_readahead": "on" if index_readahead else "off",
        "shuffle": args.shuffle,
        "seed": args.seed,
        "epochs": args.epochs,
        "consume_in": "workers" if args.hash_in_workers else "main",
        "prefetch_factor": 2 if args.workers > 0 else None,  # DataLoader's default
        "persistent_workers": False,
        "limit": args.records,
        "rank": args.rank,
        "world": args.world,
        "torch": torch.__version__,
        "py_lmdb": lmdb.__version__,
        "python": platform.python_version(),
    }
    return result_line(PEER, tally, clock.times(), extra={"index_s": index_s}, config=config, epochs=log.entries)


def main(argv: list[str]) -> int:
    """Run the peer; return the exit status."""
    clock = Clock(ready=time.perf_counter())
    args = parse_args(argv)
    try:
        line = run(args, clock)
    except UsageError as e:
        fail(PEER, str(e), EXIT_USAGE)
    except Exception as e:  # noqa: BLE001 - one line, never a traceback (worker errors included)
        fail(PEER, f"{args.path}: {one_line(e)}", EXIT_RUNTIME)
    print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
