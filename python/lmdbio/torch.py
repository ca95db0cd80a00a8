"""PyTorch: lmdbio.torch.Dataset, an IterableDataset over lmdbio's loader for
distributed (DDP) training loops.

    ds = lmdbio.torch.Dataset("/data/train_lmdb", batch=64, epochs=90)
    for epoch in range(90):
        for keys, values in torch.utils.data.DataLoader(ds, batch_size=None):
            ...   # values: the learner's own uint8 tensors (copies), writable

Every rank gets len(ds) batches per epoch, the same number on every rank, so
collective calls in the loop (DDP's gradient all-reduce) never wait for a
rank that ran out of data. lmdbio does the batching and the prefetching:
use batch_size=None and no DataLoader workers (a worker cannot use the loader
of its parent: a forked one gets StateError when it calls it, a spawned one
when the Dataset is pickled for it).

remainder: what happens to the records that do not fill the last round
(batch x ranks). "pad" (the default) suits training: full batches on every
rank, as DistributedSampler with drop_last=False, repeating a few records.
"keep" suits evaluation: every record exactly once, so an accuracy is not
skewed; the short last batches are spread as DistributedSampler spreads
its records (sizes differ by at most one across ranks). "drop-last" leaves
them out.

locality (with shuffle="global" or "chunk"; "on" by default): every global
batch is a uniform sample, but each rank first takes the records its node
holds, so a rank's own batch comes mostly from its node's part of the file,
and largely the same records every epoch. A gradient averaged over the
ranks (DDP) is unaffected; what a rank computes from its local batch alone
is not: BatchNorm without SyncBatchNorm sees few classes of a dataset
sorted by label. Use locality="off" there (more records cross between
nodes), or SyncBatchNorm.

shuffle="none" gives key order, as LMDB's cursor walks it; shuffle="file"
the file's order (see docs/shuffle.md).
"""

import ctypes

import torch
import torch.utils.data

from . import Loader, StateError, _lib


def tensors(batch):
    """The default decode: (keys, values) with keys as bytes and values as
    torch.uint8 tensors. The tensors are the learner's own: copies of the
    values out of the node's shared memory, made as the batch is decoded (a
    memcpy of the batch's bytes into one new buffer), so they may be written
    in place (normalised, augmented) and kept past the next batch without
    harm to other learners or later epochs. (torch has no read-only tensors:
    one over the shared memory itself would crash the learner when written.)
    For zero-copy access, read batch.values (read-only memoryviews) or
    batch.arrays() (read-only numpy arrays) in a decode of your own."""
    return [bytes(k) for k in batch.keys], _tensors(batch._addresses)


def labelled(batch):
    """A decode for datasets with labels (HDF5): (keys, values, labels), the
    labels as the learner's own uint8 tensors like the values (view them
    with .view(torch.int64) for int64 labels)."""
    keys, values = tensors(batch)
    return keys, values, _tensors(batch._label_addresses)


def prepped(batch):
    """The decode of a loader with prep=SPEC: (images, labels) torch tensors,
    images of shape (B, H, W, C), or (B, C, H, W) with chw, over the loader's
    memory (no copy, valid until the next batch, not to be written), labels
    int64. Batches of decoded Datums (a pipeline without a final crop) are
    decoded as tensors(batch) does."""
    if batch.images is None:
        return tensors(batch)
    address, length, shape, dtype = batch._image_address
    if not length:
        images = torch.empty(shape, dtype=getattr(torch, dtype))
    else:
        images = torch.frombuffer(_lib.memory_view(address, length, _lib.PyBUF_WRITE),
                                  dtype=getattr(torch, dtype)).reshape(shape)
    return images, torch.from_numpy(batch.labels.copy())


def _tensors(addresses):
    """uint8 tensors with copies of the bytes at addresses, slices of one new
    buffer: the shared memory is mapped read-only, and a tensor over it
    would take a write in place (values[0].add_(1)) with SIGSEGV."""
    store = torch.empty(sum(length for _, length in addresses), dtype=torch.uint8)
    base, at, out = store.data_ptr(), 0, []
    for address, length in addresses:
        if length:
            ctypes.memmove(base + at, address, length)
        out.append(store[at:at + length])
        at += length
    return out


class Dataset(torch.utils.data.IterableDataset):
    """This rank's batches of the dataset at path, one item per batch.

    Creating it opens the loader, which is collective: every rank creates
    its Dataset with the same arguments. Options are Loader's (batch,
    epochs, shuffle, seed, remainder, resume, ...). Each iteration walks the
    next epoch; an item is decode(batch), by default tensors(batch)
    (labelled(batch) adds the labels). decode runs before the next batch is
    read, so it may use the batch's zero-copy views. With prep=SPEC the
    default is prepped(batch): (images, labels) tensors.
    """

    def __init__(self, path, batch=64, decode=None, **options):
        super().__init__()
        self.loader = Loader(path, batch=batch, **options)
        self.decode = decode or (prepped if self.loader.prep else tensors)

    def __len__(self):
        return len(self.loader)

    def state(self):
        """The loader's state, for Dataset(..., resume=state)."""
        return self.loader.state()

    def __iter__(self):
        for b in self.loader:
            yield self.decode(b)

    def close(self):
        self.loader.close()

    def __reduce_ex__(self, protocol):
        # A DataLoader started by spawn or forkserver pickles the dataset
        # for each worker: the loader's handle cannot travel, and a fresh
        # loader in the worker would be another collective Open. Say so, as
        # a forked worker does, rather than ctypes' "cannot be pickled".
        raise StateError(_lib.ERR_STATE, "a loader cannot be used from another process (a DataLoader worker "
                         "started by spawn or forkserver): use num_workers=0 (lmdbio already reads in the background)")
