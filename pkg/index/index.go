package index

import (
	"errors"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

// Sentinel errors; test for them with errors.Is.
var (
	// ErrCorrupt means a serialised index failed validation.
	ErrCorrupt = failure.New(failure.Input, "corrupt index")
	// ErrStale means an index describes another version of the database
	// file than the one on disk.
	ErrStale = errors.New("stale index")
)

// Identity identifies the version of a database file an Index describes.
type Identity struct {
	// Size is the file size in bytes.
	Size int64
	// TxnID is the id of the LMDB transaction that committed the snapshot.
	TxnID uint64
	// MtimeNs is the file's modification time in nanoseconds since the epoch.
	MtimeNs int64
}

// Index lists a database's records: keys in one blob, and per record the
// value's offset and length in the data file. The zero value is an empty
// index.
type Index struct {
	id     Identity
	psize  int      // the database's page size; 0 for an empty index
	keys   []byte   // all keys, concatenated in record order
	keyOff []uint32 // key i is keys[keyOff[i]:keyOff[i+1]]; len Len()+1
	off    []int64  // value offsets in the data file
	size   []uint32 // value lengths; LMDB values are < 4 GiB
	total  int64    // sum of size
}

// Len is the number of records.
func (x *Index) Len() int { return len(x.off) }

// Key returns record i's key. The slice aliases the index; do not modify it.
func (x *Index) Key(i int) []byte {
	return x.keys[x.keyOff[i]:x.keyOff[i+1]:x.keyOff[i+1]]
}

// Extent returns the offset and length of record i's value in the data file.
func (x *Index) Extent(i int) (off, n int64) { return x.off[i], int64(x.size[i]) }

// TotalBytes is the sum of all value lengths.
func (x *Index) TotalBytes() int64 { return x.total }

// Identity is the database file version this index describes.
func (x *Index) Identity() Identity { return x.id }

// PageSize is the database page size in bytes, 0 for an index of no records.
func (x *Index) PageSize() int { return x.psize }
