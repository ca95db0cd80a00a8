// Package hdf5 presents a dataset of an HDF5 file as a source.Source:
// record i is row i (along the first dimension) of the dataset, its key the
// row number as 8 bytes little-endian, its value the row's bytes as stored
// (the file's element type and byte order), its label the same row of an
// optional labels dataset.
//
// # Overview
//
// Open inspects the file with libhdf5 (package h5lib) once, on one rank,
// and decides how the rows are read:
//
//   - by offset: a contiguous dataset, or one whose unfiltered chunks hold
//     whole rows. One block per row, one piece, no decoding: the node
//     reader reads rows with pread like LMDB values, with no libhdf5 call.
//   - by chunk: a chunked dataset whose filters are deflate (gzip) and
//     shuffle, or none. A block is the rows one chunk index of the first
//     dimension covers; its pieces are those chunks in file order; Decode
//     inflates, unshuffles and assembles them in Go.
//   - through libhdf5: any other filter (that this libhdf5 decodes), compact,
//     virtual or external storage, unwritten chunks. Blocks have no pieces;
//     Decode reads their rows with libhdf5 hyperslab reads. Info says so.
//
// A Source is plain data once built: MarshalBinary encodes it for the node
// readers and Unmarshal decodes and validates it without libhdf5.
//
// # Errors
//
// Files and datasets lmdbio cannot read give errors that wrap ErrBadInput
// and say what is wrong without the file's path, which callers add. A
// block that does not decode gives an error that names the chunk and wraps
// source.ErrCorrupt.
//
// # Concurrency
//
// A Source is immutable: its methods, Decode included, are safe for
// concurrent use. Decoding through libhdf5 runs on h5lib's goroutine, one
// block at a time.
package hdf5
