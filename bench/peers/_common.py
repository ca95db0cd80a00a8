"""Shared code of the peer baselines: the consumers, the clock, the result line, errors.

Every peer performs the same consumer work as lmdbio's learners in
`lmdbio-bench bench`: "sha256" is the digest of `lmdbio digest` (for each record,
SHA-256(key || value), the first 8 bytes read as a little-endian uint64, summed
modulo 2^64; equal digests prove that a peer read every record exactly once);
"touch" reads one byte in every page of every value, the last page included.

Times count from the start of the process, taken from the kernel
(/proc/self/stat) the way `lmdbio-bench bench` takes its own, so a peer's window and
lmdbio's begin at the same event. The module holds no state beyond constants.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, NoReturn

MASK64 = (1 << 64) - 1
MB = 1_000_000  # decimal megabytes, as `lmdbio digest --json` reports mb_per_s
TOUCH_STRIDE = 4096  # as lmdbio's touch consumer: one read per page
CONSUMERS = ("sha256", "touch")


def process_age() -> float:
    """Seconds since this process was started (exec'd).

    The kernel's start time (field 22 of /proc/self/stat, in clock ticks after
    boot) against CLOCK_BOOTTIME, as `lmdbio-bench bench` measures its own learners:
    resolution one clock tick (10 ms). Raises OSError where /proc has no stat.
    """
    with open("/proc/self/stat", "rb") as f:
        stat = f.read()
    fields = stat[stat.rindex(b")") + 1:].split()  # the command name may hold spaces
    start = int(fields[22 - 3]) / os.sysconf("SC_CLK_TCK")
    return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - start)


def _process_start() -> float:
    """The process start on the time.perf_counter() clock (now, without /proc)."""
    now = time.perf_counter()
    try:
        return now - process_age()
    except (OSError, ValueError, IndexError):
        print("peer: cannot read the process start time: start-up before this module is not counted",
              file=sys.stderr)
        return now


PROCESS_START = _process_start()

EXIT_RUNTIME = 1  # I/O failure, a dead worker or rank
EXIT_USAGE = 2  # bad flags, a path that is not an LMDB


class UsageError(Exception):
    """Bad input: a path or a dataset the peer cannot use (exit status 2)."""


def record_digest(key: bytes, value: bytes) -> int:
    """Return the first 8 bytes of SHA-256(key || value) as a little-endian int."""
    h = hashlib.sha256(key)
    h.update(value)  # two updates: no concatenated copy of a 100 KB value
    return int.from_bytes(h.digest()[:8], "little")


def touch(_key: bytes, value: bytes) -> int:
    """Read value[0], value[4096], ... and the last byte; return their sum.

    Reads 4096 bytes apart land in consecutive pages wherever the value
    starts, and the last byte covers the page the stride stops short of.
    """
    if not value:
        return 0
    return sum(value[::TOUCH_STRIDE]) + value[-1]


def consumer_function(kind: str) -> Callable[[bytes, bytes], int]:
    """The work a consumer does on one record; its results are summed."""
    return record_digest if kind == "sha256" else touch


@dataclass
class Tally:
    """Records, value bytes and the sum of what the consumer returned for them.

    For "sha256" the sum is the digest of `lmdbio digest`; for "touch" it is
    kept only so that the reads cannot be skipped.
    """

    consumer: str = "sha256"
    records: int = 0
    bytes: int = 0
    digest: int = 0

    def add(self, key: bytes, value: bytes) -> None:
        """Consume one record into the tally."""
        self.add_consumed(consumer_function(self.consumer)(key, value), len(value))

    def add_consumed(self, result: int, nbytes: int) -> None:
        """Count one record whose consumer result was computed elsewhere (in a worker)."""
        self.records += 1
        self.bytes += nbytes
        self.digest = (self.digest + result) & MASK64

    def merge(self, other: "Tally") -> None:
        """Add another consumer's tally (another rank's) to this one."""
        self.records += other.records
        self.bytes += other.bytes
        self.digest = (self.digest + other.digest) & MASK64


@dataclass
class Clock:
    """The moments of a peer's run on the time.perf_counter() clock.

    ready: the script's own start (after the interpreter and the imports);
    loop_start, first_batch, loop_end: the epoch loop. origin is where the
    times count from: this process's start, or that of the process that
    launched it (a peer whose processes a launcher starts, see
    origin_of).
    """

    ready: float = 0.0
    loop_start: float = 0.0
    first_batch: float = 0.0
    loop_end: float = 0.0
    origin: float = PROCESS_START

    def times(self) -> dict[str, float]:
        """The times of the result line, in seconds from the process start.

        seconds: to the last record consumed (the window rates are computed
        over); startup_s: to the start of the epoch loop; process_startup_s:
        to the script's own start (interpreter and imports); first_batch_s:
        to the first batch; loop_s: the epoch loop alone.
        """
        return {
            "seconds": self.loop_end - self.origin,
            "startup_s": self.loop_start - self.origin,
            "process_startup_s": self.ready - self.origin,
            "first_batch_s": (self.first_batch or self.loop_end) - self.origin,
            "loop_s": self.loop_end - self.loop_start,
        }


def storage_read_bytes() -> int:
    """Bytes this process and its finished children fetched from storage.

    The kernel's block input count (getrusage ru_inblock, 512-byte units),
    the figure /proc/PID/io calls read_bytes: page-cache hits do not count,
    page faults of an mmap that go to storage do. A DataLoader's workers
    count once they have exited and been joined, which they are at the end
    of every epoch without persistent workers. File systems in user space
    may not report it (0).
    """
    own = resource.getrusage(resource.RUSAGE_SELF).ru_inblock
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_inblock
    return (own + children) * 512


@dataclass
class EpochLog:
    """The epochs of a peer's run: records, bytes, times, stall and storage bytes of each.

    batches() wraps one epoch's batches; the time spent waiting for each
    batch (iter() included, which forks the workers) is the epoch's stall.
    An epoch's seconds run from the end of the one before (the first: the
    start of the epoch loop) to its last batch, so start-up and the epochs
    add up to the window, as lmdbio-bench bench counts its own epochs.
    """

    tally: Tally
    clock: Clock
    entries: list[dict[str, Any]] = field(default_factory=list)

    def batches(self, epoch: int, loader: Iterable[Any]) -> Iterator[Any]:
        """Yield the batches of one epoch of loader, timing the waits for them."""
        records, nbytes, io = self.tally.records, self.tally.bytes, storage_read_bytes()
        begin = self.clock.loop_end or self.clock.loop_start
        stall = 0.0
        t = time.perf_counter()
        it = iter(loader)
        while True:
            try:
                batch = next(it)
            except StopIteration:
                stall += time.perf_counter() - t
                break
            now = time.perf_counter()
            stall += now - t
            if not self.clock.first_batch:
                self.clock.first_batch = now
            yield batch
            t = time.perf_counter()
        end = time.perf_counter()
        self.clock.loop_end = end
        self.entries.append({
            "epoch": epoch,
            "records": self.tally.records - records,
            "bytes": self.tally.bytes - nbytes,
            "seconds": end - begin,
            "end_s": end - self.clock.origin,
            "stall_s": stall,
            "storage_bytes": max(0, storage_read_bytes() - io),
        })


def boot_time_of_start() -> float:
    """This process's start on CLOCK_BOOTTIME, to hand to the processes it
    launches (origin_of)."""
    return time.clock_gettime(time.CLOCK_BOOTTIME) - (time.perf_counter() - PROCESS_START)


def origin_of(boot_start: float) -> float:
    """The perf_counter() reading of a moment given on CLOCK_BOOTTIME (the
    start of the process that launched this one)."""
    return time.perf_counter() - (time.clock_gettime(time.CLOCK_BOOTTIME) - boot_start)


def result_line(peer: str, tally: Tally, times: dict[str, float], extra: dict[str, Any],
                config: dict[str, Any], epochs: list[dict[str, Any]] | None = None,
                origin: float = PROCESS_START) -> str:
    """Format the one JSON result line every peer prints on stdout.

    times are Clock.times() (of the slowest rank, for a peer of several);
    total_s is the time from the process start (origin) to this line.
    extra adds peer-specific times; epochs are EpochLog.entries, for peers
    that log their epochs.
    """
    seconds = times["seconds"]
    out: dict[str, Any] = {
        "type": "peer",
        "peer": peer,
        "consumer": tally.consumer,
        "records": tally.records,
        "bytes": tally.bytes,
        "digest": f"{tally.digest:016x}" if tally.consumer == "sha256" else "",
        **times,
        "samples_per_s": tally.records / seconds if seconds > 0 else 0.0,
        "mb_per_s": tally.bytes / seconds / MB if seconds > 0 else 0.0,
    }
    out.update(extra)
    if epochs is not None:
        out["epochs"] = epochs
    out["total_s"] = time.perf_counter() - origin
    out["config"] = config
    return json.dumps(out)


def one_line(err: BaseException) -> str:
    """Return an exception as one line.

    DataLoader re-raises a worker's exception with the worker's traceback in
    the message; its last line names the original error.
    """
    lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()]
    text = lines[-1] if lines else type(err).__name__
    return text if len(lines) <= 1 else f"{lines[0]} {text}"


class PeerArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors ("peer: what is wrong") and exit status 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see --help)", file=sys.stderr)
        sys.exit(EXIT_USAGE)


EPILOG = """Prints one JSON line on stdout (bench/peers/README.md has the schema).
exit status: 0 success, 1 a runtime failure, 2 bad flags or a dataset that is not an LMDB"""


def new_parser(prog: str, doc: str) -> PeerArgumentParser:
    """A parser for a peer: the first paragraph of its doc string, the exit status."""
    return PeerArgumentParser(prog=prog, description=doc.split("\n\n")[0], epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)


def add_common_flags(p: argparse.ArgumentParser) -> None:
    """Flags every LMDB peer takes: the dataset, the consumer, the batch size, a record limit, readahead."""
    p.add_argument("path", help="LMDB directory (holding data.mdb) or the data.mdb file itself")
    add_work_flags(p)
    p.add_argument("--readahead", choices=("on", "off"), default="on",
                   help="LMDB OS readahead on the mmap (py-lmdb's default: on)")


def add_work_flags(p: argparse.ArgumentParser) -> None:
    """Flags of the work every peer does: the consumer, the batch size, a record limit."""
    p.add_argument("--consumer", choices=CONSUMERS, default="sha256",
                   help="work on every record: sha256 (the digest of lmdbio digest, default) or touch "
                        "(a byte in every page of the value)")
    p.add_argument("--batch", type=positive_int, default=64, help="records per batch (default 64)")
    p.add_argument("--records", type=positive_int, default=None, metavar="N",
                   help="read only the first N records in key order (default: all)")


def add_epoch_flags(p: argparse.ArgumentParser) -> None:
    """Flags of the peers that read several epochs in a random order."""
    p.add_argument("--epochs", type=positive_int, default=1, help="epochs to read (default 1)")
    p.add_argument("--shuffle", choices=("on", "off"), default="on",
                   help="random order every epoch, as training does (default on)")
    p.add_argument("--seed", type=int, default=1, help="shuffle seed (default 1)")


def add_share_flags(p: argparse.ArgumentParser, rank_help: str, world_help: str) -> None:
    """--rank and --world: one process of a job whose launcher starts every rank itself."""
    p.add_argument("--rank", type=non_negative_int, default=None, help=rank_help)
    p.add_argument("--world", type=positive_int, default=None, help=world_help)


def check_share_flags(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse --rank without --world (or the reverse) and a rank outside the world."""
    if (args.rank is None) != (args.world is None):
        p.error("--rank and --world go together")
    if args.rank is not None and args.rank >= args.world:
        p.error(f"--rank {args.rank}: want less than --world {args.world}")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {n}")
    return n


def check_dataset(path: str) -> bool:
    """Check that path looks like an LMDB; return py-lmdb's subdir flag.

    A directory must hold data.mdb (subdir=True); a file is the data file
    itself (subdir=False). Raises UsageError with a one-line message.
    """
    if os.path.isdir(path):
        if not os.path.isfile(os.path.join(path, "data.mdb")):
            raise UsageError(f"{path}: no data.mdb in this directory")
        return True
    if os.path.isfile(path):
        return False
    raise UsageError(f"{path}: no such file or directory")


def open_env(path: str, readahead: bool, max_readers: int = 126) -> Any:
    """Open an LMDB read-only the way training scripts do; return the lmdb.Environment.

    lock=False: readers take no slot in lock.mdb, so a read-only dataset
    directory works and a killed worker leaves no stale reader behind (and
    max_readers, py-lmdb's default, bounds nothing).
    Datasets that are not LMDB raise UsageError; other failures lmdb.Error.
    """
    import lmdb  # imported here so that --help works without py-lmdb

    subdir = check_dataset(path)
    try:
        return lmdb.open(path, subdir=subdir, readonly=True, lock=False,
                         readahead=readahead, meminit=False, max_readers=max_readers)
    except (lmdb.InvalidError, lmdb.VersionMismatchError, lmdb.CorruptedError) as e:
        raise UsageError(f"{path}: not a readable LMDB: {e}") from e


def fail(prog: str, message: str, code: int) -> NoReturn:
    """Print one error line on stderr and exit with code."""
    print(f"{prog}: {message}", file=sys.stderr)
    sys.exit(code)
