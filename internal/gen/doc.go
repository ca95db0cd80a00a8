// Package gen writes synthetic datasets for benchmarks and tests: LMDB
// shaped like ImageNet as Caffe stores it (Write), and HDF5 files of uint8
// image rows with int64 labels (WriteHDF5).
//
// # Overview
//
// Write fills a directory with data.mdb (and lock.mdb) holding Options.Records
// records. Keys follow Caffe's convert_imageset, "%08d_" plus a file name
// such as "00000042_n01440764/n01440764_42.JPEG". Value sizes are drawn from
// a normal distribution (clipped to at least one byte); values are random
// bytes, raw or wrapped in a Caffe Datum (see internal/datum) of 3 channels
// whose height and width make the pixel data about the drawn size. With
// Options.JPEG every value is instead an encoded Datum holding a JPEG of a
// synthetic photograph (Photo): ImageNet-like sizes, smooth regions, edges,
// texture and sensor noise, about as large as photographs of that size, for
// the decode and augmentation pipeline.
//
// # Invariants
//
//   - Determinism: each record is a function of (Seed, record number) alone,
//     so the same options give the same records, and KeyOrder and Random
//     give the same records, inserted in a different order.
//   - LMDB values are incompressible (a ChaCha8 stream), so file-system or
//     transport compression cannot flatter a benchmark; JPEG values are
//     compressed already, as a real image dataset's. HDF5 pixels keep 6
//     bits of entropy each, so that a gzip filter has real work to undo
//     (about 4:3) rather than storing noise.
package gen
