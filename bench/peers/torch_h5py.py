#!/usr/bin/python3
"""Peer baseline: PyTorch DataLoader over h5py, the common recipe for HDF5.

A map-style Dataset opens the HDF5 file lazily, once in each worker (h5py
objects must not cross DataLoader's fork), and reads sample i as row i of the
dataset (`ds[i]`), with row i of the labels dataset when there is one. A
DataLoader batches the rows (shuffled or not) with a collate function that
keeps the bytes. The main process consumes every batch as lmdbio's learners
do (--consumer sha256: the digest of `lmdbio digest` for HDF5, key = the row
index as 8 bytes little-endian, value = the row's bytes in the file's element
type and byte order, which must come out equal; touch: a byte in every page
of every value).

    /usr/bin/python3 bench/peers/torch_h5py.py FILE [--dataset data] [--workers 8] [--shuffle off] [--epochs 3]

Prints one JSON line on stdout (schema in README.md). Exit status: 0 success,
1 a runtime failure, 2 bad flags or a file or dataset that is not usable HDF5.
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import sys
import time
import warnings
from typing import Any, Callable

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch.utils.data import DataLoader, Dataset  # noqa: E402

from _common import (  # noqa: E402
    EXIT_RUNTIME, EXIT_USAGE, Clock, EpochLog, PeerArgumentParser, Tally, UsageError, add_epoch_flags,
    add_work_flags, consumer_function, fail, non_negative_int, one_line, result_line)

PEER = "torch_h5py"
EPILOG = """Prints one JSON line on stdout (bench/peers/README.md has the schema).
exit status: 0 success, 1 a runtime failure, 2 bad flags or a file that is not usable HDF5"""


def open_file(path: str) -> Any:
    """Open an HDF5 file read-only; files that are not HDF5 raise UsageError."""
    if not os.path.isfile(path):
        raise UsageError(f"{path}: no such file")
    if not h5py.is_hdf5(path):
        raise UsageError(f"{path}: not an HDF5 file")
    try:
        return h5py.File(path, "r")
    except OSError as e:
        raise UsageError(f"{path}: h5py cannot open it: {one_line(e)}") from e


def dataset_names(f: Any) -> list[str]:
    """List the file's datasets, for an error message."""
    names: list[str] = []
    f.visititems(lambda name, obj: names.append("/" + name) if isinstance(obj, h5py.Dataset) else None)
    return names


def check_rows(f: Any, path: str, name: str) -> Any:
    """Return dataset name of f if it has rows of fixed-size elements."""
    if name not in f or not isinstance(f[name], h5py.Dataset):
        raise UsageError(f'{path}: no dataset "{name}"; the file has {", ".join(dataset_names(f)) or "none"}')
    d = f[name]
    if d.ndim == 0:
        raise UsageError(f"{path}: dataset {d.name} is a scalar (rank 0)")
    if d.dtype.kind not in "biufcV" or d.dtype.hasobject:
        raise UsageError(f"{path}: dataset {d.name}: element type {d.dtype} is not fixed-size numeric")
    return d


class H5Dataset(Dataset):
    """Rows of an HDF5 dataset, with the same row of a labels dataset.

    The file is opened on first use in each process: h5py handles must not
    cross a fork, and DataLoader forks its workers.
    """

    def __init__(self, path: str, name: str, labels: str | None, rows: int) -> None:
        self.path, self.name, self.labels, self.rows = path, name, labels, rows
        self.file: Any = None
        self.data: Any = None
        self.label_data: Any = None

    def __len__(self) -> int:
        return self.rows

    def __getitem__(self, i: int) -> tuple[bytes, bytes, bytes]:
        if self.file is None:
            self.file = h5py.File(self.path, "r")
            self.data = self.file[self.name]
            if self.labels:
                self.label_data = self.file[self.labels]
        value = np.ascontiguousarray(self.data[i]).tobytes()  # the file's dtype, byte order included
        label = self.label_data[i].tobytes() if self.label_data is not None else b""
        return key(i), value, label


def key(i: int) -> bytes:
    """The key of row i, as `lmdbio digest` defines it for HDF5."""
    return i.to_bytes(8, "little")


def collate_bytes(samples: list[tuple[bytes, bytes, bytes]]) -> tuple[list[bytes], list[bytes], list[bytes]]:
    """Keep a batch as lists of bytes (the default collate would fail on bytes)."""
    return [k for k, _, _ in samples], [v for _, v, _ in samples], [lb for _, _, lb in samples]


def collate_consumed(consume: Callable[[bytes, bytes], int], samples: list[tuple[bytes, bytes, bytes]]
                     ) -> tuple[list[bytes], list[bytes], list[bytes], list[int]]:
    """Like collate_bytes, plus each record's consumer result, computed in the worker."""
    keys, values, labels = collate_bytes(samples)
    return keys, values, labels, [consume(k, v) for k, v in zip(keys, values)]


def init_worker(_worker_id: int) -> None:
    """Keep each worker to one intra-op thread, as training scripts do."""
    torch.set_num_threads(1)


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Parse the command line."""
    doc = (__doc__ or "").split("\n\n")[0]
    p = PeerArgumentParser(prog=PEER, description=doc, epilog=EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", help="HDF5 file")
    add_work_flags(p)
    add_epoch_flags(p)
    p.add_argument("--dataset", default="data", help="dataset whose rows are the samples (default data)")
    p.add_argument("--labels", default=None,
                   help="labels dataset read with each row (default: label, if the file has it; 'none': no labels)")
    p.add_argument("--workers", type=non_negative_int, default=8,
                   help="DataLoader worker processes; 0 reads in the main process (default 8)")
    p.add_argument("--hash-in-workers", action="store_true",
                   help="run the consumer in the workers instead of the main process; values still travel "
                        "to the main process (default: consume in main, where a training loop does)")
    return p.parse_args(argv)


def inspect(args: argparse.Namespace) -> tuple[str, str | None, int]:
    """Check the file and datasets; return the dataset, labels and row count."""
    with open_file(args.path) as f:
        d = check_rows(f, args.path, args.dataset)
        labels = args.labels
        if labels is None:
            labels = "label" if "label" in f else "none"
        if labels != "none":
            lab = check_rows(f, args.path, labels)
            if lab.shape[0] != d.shape[0]:
                raise UsageError(f"{args.path}: labels {lab.name} have {lab.shape[0]} rows, "
                                 f"dataset {d.name} has {d.shape[0]}")
            labels = lab.name
        rows = d.shape[0] if args.records is None else min(args.records, d.shape[0])
        return d.name, None if labels == "none" else labels, rows


def run(args: argparse.Namespace, clock: Clock) -> str:
    """Read the epochs and return the result line."""
    # More workers than cores is the configuration under test, not a mistake.
    warnings.filterwarnings("ignore", message="This DataLoader will create")
    t = time.perf_counter()
    name, labels, rows = inspect(args)  # closed again: workers open their own after the fork
    index_s = time.perf_counter() - t

    torch.set_num_threads(1)
    gen = torch.Generator()
    gen.manual_seed(args.seed)
    loader = DataLoader(
        H5Dataset(args.path, name, labels, rows),
        batch_size=args.batch,
        shuffle=args.shuffle == "on",
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
        for batch in log.batches(epoch, loader):
            if args.hash_in_workers:
                _, values, _, results = batch
                for d, v in zip(results, values):
                    tally.add_consumed(d, len(v))
            else:
                for k, v in zip(batch[0], batch[1]):
                    tally.add(k, v)

    config = {
        "workers": args.workers,
        "batch": args.batch,
        "dataset": name,
        "labels": labels,
        "shuffle": args.shuffle,
        "seed": args.seed,
        "epochs": args.epochs,
        "consume_in": "workers" if args.hash_in_workers else "main",
        "prefetch_factor": 2 if args.workers > 0 else None,  # DataLoader's default
        "persistent_workers": False,
        "limit": args.records,
        "file_locking": os.environ.get("HDF5_USE_FILE_LOCKING", "default"),
        "torch": torch.__version__,
        "h5py": h5py.__version__,
        "hdf5": h5py.version.hdf5_version,
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
