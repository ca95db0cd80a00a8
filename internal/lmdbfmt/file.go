package lmdbfmt

import (
	"fmt"
	"io"
)

// Options tune how a File is read. The zero value is the fast default.
type Options struct {
	// VerifyOverflow makes Walk read the 16-byte header of every overflow
	// value's first page and check that it is an overflow page long enough
	// for the value. It costs one small read per large record, so it is off
	// by default; the extent is always checked against the file either way.
	VerifyOverflow bool
}

// File is an LMDB data file opened for reading its main database.
// It is immutable after Open; see the package doc for concurrency.
type File struct {
	r    io.ReaderAt
	size int64
	meta Meta
	opt  Options
}

// Open validates the meta pages of the LMDB file read through r, which holds
// size bytes, with default Options. See OpenOptions.
func Open(r io.ReaderAt, size int64) (*File, error) {
	return OpenOptions(r, size, Options{})
}

// OpenOptions validates both meta pages of the LMDB file read through r,
// which holds size bytes, and picks the newer snapshot.
//
// Errors wrap ErrNotLMDB when neither meta page carries LMDB's magic,
// ErrUnsupported for 32-bit files, other format versions and a main database
// with sorted duplicates, and ErrCorrupt for truncated files and files with
// a damaged meta page, either one.
// Named sub-databases are found, and rejected, by Walk.
func OpenOptions(r io.ReaderAt, size int64, opt Options) (*File, error) {
	m, err := pickMeta(r, size)
	if err != nil {
		return nil, err
	}
	if m.Flags&dbDupFlags != 0 {
		return nil, unsupportedf("main database has sorted duplicates (MDB_DUPSORT, flags 0x%x)", m.Flags)
	}
	return &File{r: r, size: size, meta: m, opt: opt}, nil
}

// PageSize is the database page size in bytes.
func (f *File) PageSize() int { return f.meta.PageSize }

// Meta describes the snapshot this File reads.
func (f *File) Meta() Meta { return f.meta }

// Size is the file size given to Open.
func (f *File) Size() int64 { return f.size }

// String describes the snapshot briefly, for logs.
func (f *File) String() string {
	m := f.meta
	return fmt.Sprintf("lmdb txn %d, %d entries, depth %d, page size %d", m.TxnID, m.Entries, m.Depth, m.PageSize)
}
