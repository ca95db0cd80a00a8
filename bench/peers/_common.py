"""Shared code of the peer baselines: the digest, the result line, errors.

Every peer performs the same consumer work as `lmdbio digest`: for each record,
SHA-256(key || value), the first 8 bytes read as a little-endian uint64, summed
modulo 2^64. Equal digests prove that a peer read every record exactly once.
The module holds no state beyond constants.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from typing import Any, NoReturn

MASK64 = (1 << 64) - 1
MB = 1_000_000  # decimal megabytes, as `lmdbio digest --json` reports mb_per_s

EXIT_RUNTIME = 1  # I/O failure, a dead worker or rank
EXIT_USAGE = 2  # bad flags, a path that is not an LMDB


class UsageError(Exception):
    """Bad input: a path or a dataset the peer cannot use (exit status 2)."""


def record_digest(key: bytes, value: bytes) -> int:
    """Return the first 8 bytes of SHA-256(key || value) as a little-endian int."""
    h = hashlib.sha256(key)
    h.update(value)  # two updates: no concatenated copy of a 100 KB value
    return int.from_bytes(h.digest()[:8], "little")


@dataclass
class Tally:
    """Records, value bytes and the digest sum of what one consumer has hashed."""

    records: int = 0
    bytes: int = 0
    digest: int = 0

    def add(self, key: bytes, value: bytes) -> None:
        """Hash one record into the tally."""
        self.add_hashed(record_digest(key, value), len(value))

    def add_hashed(self, digest: int, nbytes: int) -> None:
        """Count one record whose digest was computed elsewhere (in a worker)."""
        self.records += 1
        self.bytes += nbytes
        self.digest = (self.digest + digest) & MASK64

    def merge(self, other: "Tally") -> None:
        """Add another consumer's tally (another rank's) to this one."""
        self.records += other.records
        self.bytes += other.bytes
        self.digest = (self.digest + other.digest) & MASK64


def result_line(peer: str, tally: Tally, seconds: float, startup_s: float,
                first_batch_s: float, total_s: float, extra: dict[str, Any],
                config: dict[str, Any]) -> str:
    """Format the one JSON result line every peer prints on stdout.

    seconds is the wall time of the epoch loop; startup_s the time from the
    top of the script (before heavy imports) to the first batch; first_batch_s
    the time from the start of the loop to the first batch; total_s the time
    from the top of the script to this line. extra adds peer-specific times.
    """
    out: dict[str, Any] = {
        "type": "peer",
        "peer": peer,
        "records": tally.records,
        "bytes": tally.bytes,
        "digest": f"{tally.digest:016x}",
        "seconds": seconds,
        "startup_s": startup_s,
        "first_batch_s": first_batch_s,
        "samples_per_s": tally.records / seconds if seconds > 0 else 0.0,
        "mb_per_s": tally.bytes / seconds / MB if seconds > 0 else 0.0,
    }
    out.update(extra)
    out["total_s"] = total_s
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
    """Flags every peer takes: the dataset, the batch size, a record limit."""
    p.add_argument("path", help="LMDB directory (holding data.mdb) or the data.mdb file itself")
    p.add_argument("--batch", type=positive_int, default=64, help="records per batch (default 64)")
    p.add_argument("--records", type=positive_int, default=None, metavar="N",
                   help="read only the first N records in key order (default: all)")
    p.add_argument("--readahead", choices=("on", "off"), default="on",
                   help="LMDB OS readahead on the mmap (py-lmdb's default: on)")


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
