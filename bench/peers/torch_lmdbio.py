#!/usr/bin/python3
"""Peer: a PyTorch training loop that reads through lmdbio's Python binding,
its learners started by lmdbio run --agent, as a DDP job would be.

Run as the benchmark runs it, it launches itself as the learners of an
agent job (one agent per node, --learners-per-node learners on each):

    /usr/bin/python3 bench/peers/torch_lmdbio.py DATASET [--nodes 2] [--learners-per-node 4]

Each learner iterates lmdbio.torch.Dataset under a DataLoader
(batch_size=None: lmdbio batches and prefetches), the shape of a training
loop: for every batch, the consumer on every value (--consumer: sha256, the
digest of `lmdbio digest`, or touch: a byte in every page), then
--compute-ms of sleep standing in for the forward and backward pass. Every
record is read once (remainder keep). Learner 0 prints one JSON line
(schema in README.md) with the sums over the learners and the slowest
learner's times, counted from the start of the launching process, so
lmdbio run, MPI and the agents' start-up are in the window. Exit status: 0
success, 1 a runtime failure, 2 bad flags or a dataset lmdbio cannot read.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import time
from typing import Any

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

from _common import (  # noqa: E402
    CONSUMERS, EXIT_RUNTIME, EXIT_USAGE, MASK64, TOUCH_STRIDE, Clock, Tally, UsageError, boot_time_of_start,
    fail, new_parser, non_negative_int, one_line, origin_of, positive_int, record_digest, result_line)

PEER = "torch_lmdbio"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Parse the command line."""
    p = new_parser(PEER, __doc__ or "")
    p.add_argument("path", help="dataset: an LMDB directory or its data.mdb, or an HDF5 file")
    p.add_argument("--consumer", choices=CONSUMERS, default="sha256",
                   help="work on every record: sha256 (the digest of lmdbio digest, default) or touch")
    p.add_argument("--batch", type=positive_int, default=64, help="records per learner batch (default 64)")
    p.add_argument("--nodes", type=positive_int, default=1,
                   help="nodes, one agent each (emulated on this host without Slurm; default 1)")
    p.add_argument("--learners-per-node", type=positive_int, default=4, help="learner processes per node (default 4)")
    p.add_argument("--compute-ms", type=non_negative_int, default=0,
                   help="milliseconds of sleep after every batch, the training step's compute (default 0)")
    p.add_argument("--shuffle", choices=("none", "chunk", "global", "local"), default="global",
                   help="lmdbio's order of the epoch (default global, as a DataLoader's shuffle=True)")
    p.add_argument("--seed", type=int, default=1, help="shuffle seed (default 1)")
    p.add_argument("--lmdbio", default=os.environ.get("LMDBIO", ""),
                   help="the lmdbio command (default $LMDBIO, else bin/lmdbio of this source tree, else PATH)")
    p.add_argument("--learner", type=float, default=None, metavar="BOOT_START", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def lmdbio_command(flag: str) -> str:
    """The lmdbio binary that launches the learners."""
    for candidate in (flag, os.path.join(REPO, "bin", "lmdbio"), shutil.which("lmdbio") or ""):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise UsageError("lmdbio not found: build it (make build), or name it with --lmdbio or $LMDBIO")


def launch(args: argparse.Namespace, argv: list[str]) -> int:
    """Start the learners through lmdbio run --agent and wait for them.
    Their output (learner 0's result line) passes through."""
    if not os.path.exists(args.path):
        raise UsageError(f"{args.path}: no such file or directory")
    cmd = [lmdbio_command(args.lmdbio), "run", "--agent", "-n", str(args.nodes),
           "--learners-per-node", str(args.learners_per_node), "--",
           sys.executable, os.path.abspath(__file__), "--learner", repr(boot_time_of_start()), *argv]
    env = dict(os.environ)
    if os.path.isdir(os.path.join(REPO, "python", "lmdbio")):  # the binding of this source tree
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.join(REPO, "python"), env.get("PYTHONPATH")]))
    return subprocess.run(cmd, env=env, check=False).returncode


def consume_tensor(kind: str):
    """The consumer over a value given as a uint8 tensor over shared memory."""
    if kind == "sha256":
        return lambda key, value: record_digest(key, memoryview(value.numpy()))

    def touch(_key: bytes, value: Any) -> int:
        if not len(value):
            return 0
        a = value.numpy()
        return int(a[::TOUCH_STRIDE].sum()) + int(a[-1])
    return touch


def learn(args: argparse.Namespace) -> None:
    """One learner: the training loop, then the sums over every learner;
    learner 0 prints the line."""
    import torch
    import torch.utils.data

    import lmdbio
    import lmdbio.torch

    clock = Clock(ready=time.perf_counter(), origin=origin_of(args.learner))  # after the imports, as the other peers

    torch.set_num_threads(1)
    ds = lmdbio.torch.Dataset(args.path, batch=args.batch, remainder="keep", shuffle=args.shuffle, seed=args.seed)
    consume = consume_tensor(args.consumer)
    tally = Tally(consumer=args.consumer)
    pause = args.compute_ms / 1000
    clock.loop_start = time.perf_counter()
    for keys, values in torch.utils.data.DataLoader(ds, batch_size=None):
        if not clock.first_batch:
            clock.first_batch = time.perf_counter()
        for k, v in zip(keys, values):
            tally.add_consumed(consume(k, v), len(v))
        if pause:
            time.sleep(pause)
    clock.loop_end = time.perf_counter()
    ds.close()

    top = lmdbio.topology()
    records, size, digest = lmdbio.allreduce_sum([tally.records, tally.bytes, tally.digest & MASK64])
    mine = [max(0, round(t * 1e6)) for t in clock.times().values()]  # microseconds, in Clock.times' order
    every = lmdbio.allreduce_sum([0] * (len(mine) * top["rank"]) + mine + [0] * (len(mine) * (top["size"] - top["rank"] - 1)))
    if top["rank"] != 0:
        return
    per_learner = [every[i:i + len(mine)] for i in range(0, len(every), len(mine))]
    # Every time is the latest learner's, as for the peers of several
    # processes: the window runs from the last learner's end of imports (the
    # learners wait for each other in the loader, as MPI ranks do in
    # MPI_Init) to the last record.
    latest = [max(column) for column in zip(*per_learner)]
    times = {name: us / 1e6 for name, us in zip(clock.times(), latest)}
    times["loop_s"] = times["seconds"] - times["startup_s"]  # the job's loop: last start to last end
    total = Tally(consumer=args.consumer, records=records, bytes=size, digest=digest)
    config = {
        "nodes": top["nodes"],
        "learners_per_node": args.learners_per_node,
        "learners": top["size"],
        "batch": args.batch,
        "shuffle": args.shuffle,
        "seed": args.seed,
        "compute_ms": args.compute_ms,
        "launcher": "lmdbio run --agent",
        "lmdbio": lmdbio.version(),
        "torch": torch.__version__,
        "python": platform.python_version(),
    }
    print(result_line(PEER, total, times, extra={}, config=config, origin=clock.origin), flush=True)


def main(argv: list[str]) -> int:
    """Run the peer, as the launcher or as one of its learners; return the exit status."""
    args = parse_args(argv)
    try:
        if args.learner is None:
            return launch(args, argv)
        learn(args)
    except UsageError as e:
        fail(PEER, str(e), EXIT_USAGE)
    except Exception as e:  # noqa: BLE001 - one line, never a traceback
        lm = sys.modules.get("lmdbio")
        bad_input = lm is not None and isinstance(e, (lm.ArgumentError, lm.InputError, lm.LaunchError, lm.VersionError))
        fail(PEER, f"{args.path}: {one_line(e)}", EXIT_USAGE if bad_input else EXIT_RUNTIME)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
