"""Checks of the prep option through the Python binding (examples/test.sh):

    prep.py DATASET    (an encoded-Datum LMDB: lmdbio gen --jpeg)

On every rank: decode,center_crop:144 (lmdbio gen --jpeg makes sides of
150 and more) equals torchvision's CenterCrop(144)
of PIL's decode of the same JPEG, byte for byte; a training pipeline gives
(B, C, H, W) float16 images and int64 labels in numpy and torch; and the
prep digest (the sum over records of the first 8 bytes of
sha256(key || output bytes)) is printed by rank 0, to compare with lmdbio
digest --prep at another world size. Prints "python prep tests: ok" first.
"""
import hashlib
import io
import sys

import numpy as np

import lmdbio

TRAIN = "decode,random_resized_crop:64,flip,normalize:imagenet,chw,float16"


def varint(b, i):
    n = shift = 0
    while True:
        c = b[i]
        i += 1
        n |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return n, i


def datum_data(b):
    """The data field (4) of a Caffe Datum."""
    i = 0
    while i < len(b):
        tag, i = varint(b, i)
        field, kind = tag >> 3, tag & 7
        if kind == 0:
            _, i = varint(b, i)
        elif kind == 2:
            n, i = varint(b, i)
            if field == 4:
                return bytes(b[i:i + n])
            i += n
        elif kind == 5:
            i += 4
        elif kind == 1:
            i += 8
        else:
            raise ValueError(f"wire type {kind}")
    raise ValueError("no data field")


def check_torchvision(path):
    try:
        import torchvision.transforms as T
        from PIL import Image
    except ImportError:
        print("skip: torchvision or PIL missing", file=sys.stderr)
        return
    raw = {}
    with lmdbio.Loader(path, batch=4) as ld:
        for b in ld:
            for k, v in b:
                raw[bytes(k)] = datum_data(v)
    crop = T.CenterCrop(144)
    n = 0
    with lmdbio.Loader(path, batch=4, prep="decode,center_crop:144") as ld:
        for b in ld:
            assert b.images.shape == (len(b), 144, 144, 3) and b.images.dtype == np.uint8, b.images.shape
            assert b.labels.dtype == np.int64 and b.labels.shape == (len(b),)
            for i, k in enumerate(b.keys):
                want = np.asarray(crop(Image.open(io.BytesIO(raw[k])).convert("RGB")))
                if not np.array_equal(b.images[i], want):
                    diff = np.abs(b.images[i].astype(int) - want.astype(int))
                    raise AssertionError(f"{k!r}: differs from torchvision in {np.count_nonzero(diff)} bytes, max {diff.max()}")
                n += 1
    assert n > 0


def prep_digest(path):
    total = 0
    with lmdbio.Loader(path, batch=3, prep=TRAIN, seed=9, shuffle="global", epochs=2, remainder="keep") as ld:
        for _ in range(2):
            for b in ld:
                assert b.images.shape[1:] == (3, 64, 64) and b.images.dtype == np.float16
                for i, k in enumerate(b.keys):
                    h = hashlib.sha256(k + b.images[i].tobytes()).digest()
                    total = (total + int.from_bytes(h[:8], "little")) % (1 << 64)
    return lmdbio.allreduce_sum([total & 0xFFFFFFFF, total >> 32])


def check_torch(path):
    try:
        import torch
        import lmdbio.torch as lt
    except ImportError:
        return
    ds = lt.Dataset(path, batch=4, prep=TRAIN)
    try:
        for images, labels in ds:
            assert images.dtype == torch.float16 and images.shape[1:] == (3, 64, 64), images.shape
            assert labels.dtype == torch.int64 and labels.shape == (images.shape[0],)
    finally:
        ds.close()


def main():
    path = sys.argv[1]
    check_torchvision(path)
    check_torch(path)
    lo, hi = prep_digest(path)
    digest = (lo + (hi << 32)) % (1 << 64)
    if lmdbio.topology()["rank"] == 0:
        print("python prep tests: ok")
        print(f"prep digest {digest:016x}")
    lmdbio.finalize()


if __name__ == "__main__":
    main()
