// Package source defines the format-neutral view of a dataset that the
// loading pipeline consumes.
//
// A Source lists records by number: record i has a key and an extent (byte
// offset and length) inside one dataset file. The sampler, planner and reader
// need nothing more, so the same pipeline serves every on-disk format:
// index.Index implements Source for LMDB files, and an HDF5 source does the
// same for rows of an HDF5 dataset.
package source

// Source is a read-only, numbered list of records and where their bytes lie
// in the dataset file.
//
// Concurrency: a Source is immutable once built, so all methods are safe for
// concurrent use by any number of goroutines without locking.
//
// Lifetimes: the slice returned by Key aliases the Source's own storage and
// must not be modified; it stays valid for the life of the Source.
type Source interface {
	// Len is the number of records; records are numbered 0..Len()-1.
	Len() int
	// Key returns the key of record i. It panics if i is out of range.
	Key(i int) []byte
	// Extent returns the byte offset of record i's value in the dataset
	// file and its length. It panics if i is out of range.
	Extent(i int) (off, n int64)
}
