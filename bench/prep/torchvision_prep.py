"""The peer of prep's benchmark: torchvision's ResNet-50 training transform
in one Python thread, as a DataLoader worker runs it.

  torchvision_prep.py DIR SAMPLES

Decodes the *.jpg files of DIR from memory with Pillow, then
RandomResizedCrop(224), RandomHorizontalFlip(), ToTensor(), Normalize
(ImageNet statistics) and .half(), as lmdbio's
decode,random_resized_crop:224,flip,normalize:imagenet,chw,float16 does;
SAMPLES samples in all, cycling over the files. Prints one JSON line:
{"type": "prep-peer", "samples", "seconds", "samples_per_s"}.
"""
import glob
import io
import json
import sys
import time

import torch
from PIL import Image
from torchvision import transforms as T


def main():
    files = sorted(glob.glob(f"{sys.argv[1]}/*.jpg"))
    samples = int(sys.argv[2])
    data = [open(f, "rb").read() for f in files]
    torch.set_num_threads(1)
    transform = T.Compose([
        T.RandomResizedCrop(224),
        T.RandomHorizontalFlip(),
        T.ToTensor(),
        T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    ])
    for b in data[:4]:  # warm up: imports, allocator
        transform(Image.open(io.BytesIO(b)).convert("RGB")).half()
    start = time.perf_counter()
    for i in range(samples):
        img = Image.open(io.BytesIO(data[i % len(data)])).convert("RGB")
        transform(img).half()
    took = time.perf_counter() - start
    print(json.dumps({"type": "prep-peer", "samples": samples, "seconds": took,
                      "samples_per_s": samples / took}))


main()
