// Package h5fmt reads the few HDF5 on-disk structures lmdbio needs and
// libhdf5 1.10 cannot list fast: the superblock (where addresses start and
// how wide they are), the layout message in a dataset's object header, and
// the version 1 B-tree that indexes a chunked dataset's chunks.
//
// # Overview
//
// libhdf5 1.10 answers "where is chunk k" by walking its chunk index from
// the start (H5Dget_chunk_info, H5Dget_chunk_info_by_coord), so listing n
// chunks takes time in n², minutes for 10^5 chunks. Walking the B-tree here
// takes one read per node. Files written with libhdf5's default format
// (h5py's default, libver "earliest") index chunks with this B-tree; newer
// index types (fixed and extensible arrays, v2 B-trees) are not read here.
//
// # Invariants
//
// Everything read from the file is checked before use: signatures, versions,
// node types, sizes, that every address lies inside the file, and that the
// walk ends (bounded depth and node count, no node visited twice). Damage
// gives an error wrapping ErrCorrupt; a structure this package does not
// read gives ErrUnsupported.
package h5fmt
