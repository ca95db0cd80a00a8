"""Writes ImageNet-sized JPEGs of real photographs for the prep benchmark.

  make_jpegs.py DIR [N]

N (default 32) crops of 500x375 pixels, at varied offsets and mirrored in
turn, of scikit-learn's two sample photographs (640x427, shipped by Debian's
python3-sklearn), saved by Pillow at quality 90 with 4:2:0 chroma, as most
ImageNet JPEGs are.
"""
import random
import sys

from PIL import Image, ImageOps
from sklearn.datasets import load_sample_images


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 32
    photos = [Image.fromarray(a) for a in load_sample_images().images]
    rng = random.Random(1)
    for i in range(n):
        img = photos[i % len(photos)]
        x, y = rng.randint(0, img.width - 500), rng.randint(0, img.height - 375)
        crop = img.crop((x, y, x + 500, y + 375))
        if (i // len(photos)) % 2:
            crop = ImageOps.mirror(crop)
        crop.save(f"{out}/{i:03d}.jpg", quality=90)


main()
