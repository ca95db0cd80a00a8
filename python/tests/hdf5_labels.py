"""Checks of an HDF5 dataset read through the Python binding, on every
learner of a job (MPI ranks, or the learners of lmdbio run --agent):

    lmdbio run --agent -N 2 --learners-per-node 2 -- python3 python/tests/hdf5_labels.py FILE.h5

Every row arrives exactly once, keyed by its row index, with the bytes of
its row and of its label as h5py reads them; lmdbio.torch.labelled gives
the labels as tensors. Rank 0 prints one line; exits non-zero on any
learner's failure.
"""

import sys

import h5py
import torch

import lmdbio
import lmdbio.torch


def main(path):
    with h5py.File(path, "r") as f:
        data, labels = f["data"][()], f["label"][()]
    rows = len(data)
    seen, wrong = [0] * rows, 0
    with lmdbio.Loader(path, batch=6, remainder="keep", shuffle="global", seed=1) as ld:
        for b in ld:
            for key, value, label in zip(b.keys, b.values, b.labels):
                row = int.from_bytes(key, "little")
                seen[row] += 1
                wrong += bytes(value) != data[row].tobytes() or bytes(label) != labels[row].tobytes()
    ds = lmdbio.torch.Dataset(path, batch=6, remainder="keep", decode=lmdbio.torch.labelled)
    for keys, values, label_tensors in torch.utils.data.DataLoader(ds, batch_size=None):
        for key, label in zip(keys, label_tensors):
            wrong += int(label.view(torch.int64)) != int(labels[int.from_bytes(key, "little")])
    ds.close()
    counts = lmdbio.allreduce_sum(seen)
    wrong = lmdbio.allreduce_sum([wrong])[0]
    bad = sum(c != 1 for c in counts)
    top = lmdbio.topology()
    if top["rank"] == 0:
        verdict = "ok" if not bad and not wrong else f"{bad} rows not once, {wrong} wrong rows or labels"
        print(f"python hdf5 tests on {top['size']} learners: {verdict}")
    return 1 if bad or wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
