"""python3 -m lmdbio digest PATH: the digest line of `lmdbio digest`, read
through the Python binding.

Every rank hashes the records it receives (SHA-256 of key || value, the
first 8 bytes as a little-endian integer, summed modulo 2**64), the sums are
reduced across ranks through lmdbio, and rank 0 prints

    records=N bytes=B digest=HHHHHHHHHHHHHHHH

(one line per epoch with --epochs, prefixed epoch=E). Run it as an MPI job:
lmdbio run -n 4 -- python3 -m lmdbio digest PATH.
"""

import argparse
import hashlib
import sys

import lmdbio

_MASK = (1 << 64) - 1


def digest(path, epochs, options):
    try:
        loader = lmdbio.Loader(path, remainder="keep", epochs=epochs, **options)
    except lmdbio.Error as e:
        e.every_rank = True  # opening is collective: every rank has this error
        raise
    with loader:
        rank = lmdbio.topology()["rank"]
        for epoch in range(epochs):
            records = size = total = 0
            for batch in loader:
                for key, value in batch:
                    h = hashlib.sha256(key)
                    h.update(value)
                    total += int.from_bytes(h.digest()[:8], "little")
                    records += 1
                    size += len(value)
            records, size, total = lmdbio.allreduce_sum([records, size, total & _MASK])
            if rank == 0:
                prefix = f"epoch={epoch} " if epochs > 1 else ""
                print(f"{prefix}records={records} bytes={size} digest={total:016x}", flush=True)


def _rank():
    try:
        return lmdbio.topology()["rank"]
    except lmdbio.Error:
        return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m lmdbio", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("digest", help="read every record once and print the digest line")
    d.add_argument("path")
    d.add_argument("--batch", type=int, default=64, help="records per batch")
    d.add_argument("--epochs", type=int, default=1, help="epochs to read")
    d.add_argument("--mode", default="default", help="reading mode (see lmdbio digest --help)")
    d.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help="another loader option (repeatable)")
    args = parser.parse_args(argv)
    options = {"batch": args.batch, "mode": args.mode}
    for kv in args.option:
        key, sep, value = kv.partition("=")
        if not sep:
            parser.error(f"--option {kv}: want KEY=VALUE")
        options[key] = value
    try:
        digest(args.path, args.epochs, options)
    except lmdbio.Error as e:
        if not getattr(e, "every_rank", False) or _rank() == 0:
            print(f"lmdbio: {e}", file=sys.stderr)
        return e.exit_status
    return 0


if __name__ == "__main__":
    sys.exit(main())
