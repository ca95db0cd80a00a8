// Package h5lib is lmdbio's use of libhdf5: it opens HDF5 files read-only,
// lists and describes their datasets (shape, element type, storage layout,
// chunks, filters), reads rows through hyperslab selections, and runs the
// calls that write files.
//
// # Overview
//
// Files, groups, datasets, types, dataspaces and property lists go through
// gonum.org/v1/hdf5. What that binding lacks — the file offset of a
// contiguous dataset, chunk locations, a dataset's creation properties
// (layout, chunk shape, filter pipeline, external storage), type details
// and libhdf5's error stack — is in extra.go, a few cgo functions on the
// binding's identifiers.
//
// # Threads
//
// The libhdf5 that Linux distributions ship is built without thread safety.
// Every libhdf5 call of the process therefore runs on one goroutine, locked
// to its OS thread, which serves the calls in turn: Do hands it a function.
// The exported functions and File's methods do that themselves and may be
// called from any goroutine; code that calls gonum.org/v1/hdf5 directly
// (the HDF5 writer of package gen) must wrap it in Do. Nothing in this
// package runs libhdf5 elsewhere.
//
// # File locking
//
// HDF5 1.10 takes an flock(2) on every file it opens, and fails on file
// systems that do not support it (errno 37, 38 or 524 on some NFS, Lustre
// and GPFS mounts). lmdbio only reads, and a training job may not assume
// that no one writes the file anyway, so unless the user has set
// HDF5_USE_FILE_LOCKING, the goroutine switches locking off before libhdf5
// opens its first file. libhdf5 1.10.8 reads that variable once, when its
// file interface initialises; the variable is set for that moment only, so
// child processes do not inherit it.
package h5lib
