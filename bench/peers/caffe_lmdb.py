#!/usr/bin/python3
"""Peer baseline: a Caffe-MPI-style LMDB reader, one reader per rank (mpi4py).

Every rank opens the LMDB and walks a cursor from the first record. Records go
to ranks in batches, round robin: rank r of N takes batches r, r+N, r+2N, ...
of --batch records in key order, and steps over the other ranks' records one
cursor step at a time, as Caffe-MPI v1 does. Access is contiguous per rank and
strided across ranks; there is no reshuffle (Caffe assumes a pre-shuffled DB).
Every rank consumes its records as lmdbio's learners do (--consumer: sha256,
the digest of `lmdbio digest`, or touch); rank 0 sums the ranks' tallies and
prints one JSON line (schema in README.md), with the slowest rank's times,
counted from its process start.

    mpirun --oversubscribe -np 4 /usr/bin/python3 bench/peers/caffe_lmdb.py DATASET

Without mpi4py it runs as a single reader. With --rank R --world N it runs
without MPI and reports rank R's share only: a caller that starts all N
processes itself sums their lines. Exit status: 0 success, 1 a runtime
failure, 2 bad flags or a dataset that is not an LMDB.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from typing import Any, Iterator

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

from _common import (  # noqa: E402
    EXIT_RUNTIME, EXIT_USAGE, Clock, Tally, UsageError, add_common_flags, add_share_flags,
    check_share_flags, fail, new_parser, one_line, open_env, result_line)

PEER = "caffe_lmdb"
# Variables the MPI launchers set in every process they start (Open MPI, MPICH/PMI, PMIx).
RANK_VARS = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK")
SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")


def launcher_env(names: tuple[str, ...]) -> int | None:
    """Return the first of the launcher variables that is set, as an int."""
    for name in names:
        value = os.environ.get(name, "")
        if value.isdigit():
            return int(value)
    return None


class World:
    """The ranks of the job: MPI.COMM_WORLD, one process without mpi4py, or
    one share of a job whose processes a caller started and will sum up."""

    def __init__(self, comm: Any, rank: int, size: int, library: str) -> None:
        self.comm = comm
        self.rank, self.size = rank, size
        self.library = library

    @classmethod
    def from_mpi(cls) -> "World":
        """MPI.COMM_WORLD (initialising MPI), or a single reader without mpi4py."""
        try:
            from mpi4py import MPI  # initialises MPI
        except ImportError:
            return cls(None, 0, 1, "none (mpi4py not installed: single reader)")
        comm = MPI.COMM_WORLD
        library = MPI.Get_library_version().replace("\0", "").splitlines()[0].strip()
        return cls(comm, comm.Get_rank(), comm.Get_size(), library)

    @classmethod
    def share(cls, rank: int, size: int) -> "World":
        """Rank of size without MPI: the caller synchronises the start and sums the lines."""
        return cls(None, rank, size, "none (--rank/--world: this process's share only)")

    def gather(self, obj: Any) -> list[Any]:
        """Every rank's obj at rank 0 (None elsewhere)."""
        return self.comm.gather(obj, root=0) if self.comm else [obj]

    def allgather(self, obj: Any) -> list[Any]:
        """Every rank's obj at every rank."""
        return self.comm.allgather(obj) if self.comm else [obj]

    def barrier(self) -> None:
        """Wait for every rank, so that all start reading together."""
        if self.comm:
            self.comm.Barrier()

    def abort(self, code: int) -> None:
        """End every rank now: a failure on one rank must not hang the others."""
        if self.comm:
            self.comm.Abort(code)
        sys.exit(code)


def my_batches(cursor: Any, rank: int, size: int, batch: int,
               limit: int | None) -> Iterator[list[tuple[bytes, bytes]]]:
    """Yield this rank's batches, in key order, of the first limit records.

    The other ranks' records are skipped with cursor steps that do not copy
    their values, as Caffe-MPI v1 skips record by record.
    """
    i = 0
    ok = cursor.first()
    while ok and (limit is None or i < limit):
        if (i // batch) % size != rank:
            ok = cursor.next()
            i += 1
            continue
        items: list[tuple[bytes, bytes]] = []
        while ok and len(items) < batch and (limit is None or i < limit):
            items.append((cursor.key(), cursor.value()))
            ok = cursor.next()
            i += 1
        yield items


def parse_args(argv: list[str], quiet: bool) -> argparse.Namespace:
    """Parse the command line; only rank 0 prints errors (every rank sees the same flags)."""
    p = new_parser(PEER, __doc__ or "")
    if quiet:
        p.error = lambda _msg: sys.exit(EXIT_USAGE)  # type: ignore[method-assign]
    add_common_flags(p)
    add_share_flags(p, "without MPI: read only the share of this rank (with --world) and print "
                       "that share's line; the caller starts every rank and sums the lines",
                    "without MPI: the number of ranks the records are spread over (with --rank)")
    args = p.parse_args(argv)
    check_share_flags(p, args)
    return args


def read_share(args: argparse.Namespace, env: Any, world: World, clock: Clock) -> dict[str, Any]:
    """Read and consume this rank's records; return its tally and times."""
    tally = Tally(consumer=args.consumer)
    world.barrier()
    clock.loop_start = time.perf_counter()
    with env.begin(write=False) as txn:
        for items in my_batches(txn.cursor(), world.rank, world.size, args.batch, args.records):
            if not clock.first_batch:
                clock.first_batch = time.perf_counter()
            for k, v in items:
                tally.add(k, v)
    clock.loop_end = time.perf_counter()
    return {"tally": tally, "times": clock.times()}


def summary(args: argparse.Namespace, world: World, shares: list[dict[str, Any]]) -> str:
    """Combine the ranks' shares into the result line (rank 0, or a --rank share)."""
    tally = Tally(consumer=args.consumer)
    for share in shares:
        tally.merge(share["tally"])
    # A synchronous training step needs every rank's batch: each time is the slowest rank's.
    times = {k: max(s["times"][k] for s in shares) for k in shares[0]["times"]}
    config = {
        "ranks": world.size,
        "share_of_rank": world.rank if world.comm is None and world.size > 1 else None,
        "batch": args.batch,
        "readahead": args.readahead,
        "limit": args.records,
        "mpi": world.library,
        "rank_seconds": [s["times"]["seconds"] for s in shares],
        "python": platform.python_version(),
    }
    return result_line(PEER, tally, times, extra={}, config=config)


def main(argv: list[str]) -> int:
    """Run the peer on this rank; return the exit status."""
    clock = Clock(ready=time.perf_counter())
    env_rank = launcher_env(RANK_VARS)
    args = parse_args(argv, quiet=bool(env_rank))
    if args.rank is not None:
        world = World.share(args.rank, args.world)
    else:
        world = World.from_mpi()
    env_size = launcher_env(SIZE_VARS)
    if args.rank is None and env_size and env_size > 1 and world.size == 1:
        fail(PEER, f"started as one of {env_size} processes but MPI sees 1 rank: mpi4py is "
             "missing or built for another MPI than the launcher's", EXIT_RUNTIME)

    # Opening is collective: on bad input every rank stops cleanly with one message.
    env, error = None, None
    try:
        env = open_env(args.path, args.readahead == "on")
    except UsageError as e:
        error = (str(e), EXIT_USAGE)
    except Exception as e:  # noqa: BLE001 - reported as one line below
        error = (f"{args.path}: {one_line(e)}", EXIT_RUNTIME)
    errors = [e for e in world.allgather(error) if e]
    if errors:
        if world.rank == 0 or world.comm is None:  # one message per job, or per lone share
            fail(PEER, errors[0][0], errors[0][1])
        sys.exit(errors[0][1])

    try:
        share = read_share(args, env, world, clock)
    except Exception as e:  # noqa: BLE001 - one line, then end every rank
        print(f"{PEER}: rank {world.rank}: {args.path}: {one_line(e)}", file=sys.stderr, flush=True)
        world.abort(EXIT_RUNTIME)
    shares = world.gather(share)
    if world.comm is None or world.rank == 0:
        print(summary(args, world, shares), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
