"""Reference outputs for prep's tests, from Pillow and torchvision.

  reference.py photos DIR   writes the test images into DIR (crops of
                            scikit-learn's two sample photographs)
  reference.py jobs FILE    runs the jobs of the JSON file FILE, each
                            {"src", "ops", "tensor", "out"}, writing the raw
                            bytes of the result to "out"

ops are torchvision.transforms.functional calls on a PIL image:
["crop", top, left, height, width], ["resize", height, width] (exact size),
["resize_short", s], ["center_crop", s], ["hflip"]. Without "tensor" the
result is numpy.asarray of the RGB image (HWC uint8); with {"mean", "std",
"dtype", "chw"} it is to_tensor, normalize (when mean is not null), then the
dtype, in CHW or (permuted) HWC order.
"""
import json
import sys

import numpy
from PIL import Image


def photos(out):
    from sklearn.datasets import load_sample_images

    china, flower = (Image.fromarray(a) for a in load_sample_images().images)
    china.crop((100, 40, 550, 390)).save(f"{out}/china.jpg", quality=90)
    flower.crop((50, 60, 501, 393)).save(f"{out}/flower.jpg", quality=85)
    china.crop((70, 30, 570, 405)).save(f"{out}/china444.jpg", quality=95, subsampling=0)
    flower.crop((200, 0, 533, 427)).save(f"{out}/portrait.jpg", quality=90)
    china.save(f"{out}/china_full.jpg", quality=90)
    flower.resize((1280, 854), Image.BICUBIC).save(f"{out}/flower_big.jpg", quality=90)
    china.crop((100, 40, 550, 390)).save(f"{out}/progressive.jpg", quality=90, progressive=True)
    china.crop((0, 0, 450, 350)).convert("L").save(f"{out}/gray.jpg", quality=90)
    china.crop((0, 0, 300, 200)).convert("CMYK").save(f"{out}/cmyk.jpg", quality=90)
    flower.crop((0, 0, 300, 240)).save(f"{out}/rgb.png")
    rgba = flower.crop((10, 10, 310, 250)).convert("RGBA")
    rgba.putalpha(Image.linear_gradient("L").resize(rgba.size))
    rgba.save(f"{out}/rgba.png")
    flower.crop((0, 0, 300, 240)).convert("L").save(f"{out}/gray.png")
    flower.crop((0, 0, 300, 240)).convert("P").save(f"{out}/palette.png")


def run(job):
    import torch
    import torchvision.transforms.functional as F

    img = Image.open(job["src"]).convert("RGB")
    for op in job["ops"]:
        name, args = op[0], op[1:]
        if name == "crop":
            img = F.crop(img, *args)
        elif name == "resize":
            img = F.resize(img, [args[0], args[1]])
        elif name == "resize_short":
            img = F.resize(img, args[0])
        elif name == "center_crop":
            img = F.center_crop(img, args[0])
        elif name == "hflip":
            img = F.hflip(img)
        else:
            raise SystemExit(f"reference.py: unknown op {name}")
    t = job.get("tensor")
    if t is None:
        return numpy.asarray(img).tobytes()
    x = F.to_tensor(img)
    if t["mean"] is not None:
        x = F.normalize(x, t["mean"], t["std"])
    x = x.to({"float32": torch.float32, "float16": torch.float16}[t["dtype"]])
    if not t["chw"]:
        x = x.permute(1, 2, 0).contiguous()
    return x.numpy().tobytes()


def main():
    if sys.argv[1] == "photos":
        photos(sys.argv[2])
        return
    with open(sys.argv[2]) as f:
        jobs = json.load(f)
    for job in jobs:
        with open(job["out"], "wb") as f:
            f.write(run(job))


main()
