"""One learner's samples/s through lmdbio's loader on the ResNet-50 training
input pipeline, in one of two ways:

  loader_prep.py LMDB builtin SAMPLES      lmdbio.Loader(prep=...): the prep
                                           stage's threads decode and augment
  loader_prep.py LMDB torchvision SAMPLES  lmdbio.Loader raw, then Pillow's
                                           decode and torchvision's transform
                                           in the learner's thread (today's
                                           only way with lmdbio)

LMDB holds encoded Datums (lmdbio gen --jpeg). The pipeline is decode,
RandomResizedCrop(224), flip, ImageNet normalisation, CHW, float16 on both
sides. Prints one JSON line: {"type": "loader-prep", "way", "samples",
"seconds", "samples_per_s"}.
"""
import io
import json
import sys
import time

import lmdbio

TRAIN = "decode,random_resized_crop:224,flip,normalize:imagenet,chw,float16"
BATCH = 32


def datum_data(b):
    """The data field (4) of a Caffe Datum."""
    i = 0
    while i < len(b):
        tag = shift = 0
        while True:
            c = b[i]
            i += 1
            tag |= (c & 0x7F) << shift
            shift += 7
            if c < 0x80:
                break
        field, kind = tag >> 3, tag & 7
        if kind == 0:
            while b[i] & 0x80:
                i += 1
            i += 1
        elif kind == 2:
            n = shift = 0
            while True:
                c = b[i]
                i += 1
                n |= (c & 0x7F) << shift
                shift += 7
                if c < 0x80:
                    break
            if field == 4:
                return bytes(b[i:i + n])
            i += n
        else:
            i += 4 if kind == 5 else 8
    raise ValueError("no data field")


def batches(ld, samples):
    done = 0
    while done < samples:
        for b in ld:
            yield b
            done += len(b)
            if done >= samples:
                return


def main():
    path, way, samples = sys.argv[1], sys.argv[2], int(sys.argv[3])
    epochs = 1000  # more than the run needs: it stops after SAMPLES
    if way == "builtin":
        ld = lmdbio.Loader(path, batch=BATCH, epochs=epochs, shuffle="global", prep=TRAIN)
        work = None
    else:
        import torch
        from PIL import Image
        from torchvision import transforms as T
        torch.set_num_threads(1)
        transform = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(),
                               T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])

        def work(b):
            return torch.stack([transform(Image.open(io.BytesIO(datum_data(v))).convert("RGB")).half()
                                for v in b.values])
        ld = lmdbio.Loader(path, batch=BATCH, epochs=epochs, shuffle="global")
    it = batches(ld, samples + 2 * BATCH)
    for _ in range(2):  # warm up: imports, allocators, the stage's first batches
        b = next(it)
        if work:
            work(b)
    n, start = 0, time.perf_counter()
    for b in it:
        if work:
            work(b)
        n += len(b)
    took = time.perf_counter() - start
    ld.close()
    print(json.dumps({"type": "loader-prep", "way": way, "samples": n, "seconds": took, "samples_per_s": n / took}))


main()
