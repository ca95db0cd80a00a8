// Package source defines the format-neutral view of a dataset that the
// loading pipeline consumes.
//
// # Overview
//
// A Source lists records by number, 0..Len()-1. Record i has a key and an
// optional label (small metadata the node reader copies next to the value)
// and a value of ValueLen(i) bytes. Values are stored in blocks: a block is
// the unit the node reader reads from the file and, when the format
// compresses, decodes. A block's stored bytes are one or more pieces (file
// extents); its decoded bytes hold the values of one or more records.
//
//   - LMDB (package index): one block per record, one piece, stored as is:
//     the value's bytes in data.mdb, after the page or node header that
//     identifies it (which Verify checks).
//   - HDF5, contiguous dataset: one block per row, one piece, stored as is.
//   - HDF5, chunked dataset: one block per run of rows that the chunks cover
//     together; its pieces are the chunks, in file order; Decode turns them
//     into the rows.
//   - HDF5 that only libhdf5 can read (other filters, compact, virtual or
//     external storage): blocks of rows without pieces; Decode reads them
//     through libhdf5.
//
// Blocks whose Decoder is nil are stored as is: the node reader reads them
// straight into the shared memory the learners see. The planner coalesces
// the pieces of many blocks into few large reads either way.
//
// # Invariants
//
//   - Every record lies in exactly one block, at [off, off+ValueLen(i)) of
//     the block's decoded bytes, inside DecodedLen(b).
//   - Without a Decoder every block has exactly one piece, and its length
//     equals DecodedLen(b). With one, a block may have no pieces: its
//     Decoder finds the bytes itself.
//   - Pieces lie inside the file; their lengths are positive.
//
// # Concurrency
//
// A Source is immutable once built: all methods, Decode included, are safe
// for concurrent use by any number of goroutines without locking.
package source

import "github.com/lmdbio/lmdbio/pkg/failure"

// Extent is a byte range of the dataset file.
type Extent struct {
	Off, Len int64
}

// End returns the offset just past the extent.
func (e Extent) End() int64 { return e.Off + e.Len }

// Source is a read-only, numbered list of records and where their bytes lie
// in one dataset file.
//
// Lifetimes: slices returned by Key and Label alias the Source's own storage
// and must not be modified; they stay valid for the life of the Source.
type Source interface {
	// Len is the number of records.
	Len() int
	// Key returns the key of record i (HDF5: the row number as 8 bytes,
	// little-endian). It panics if i is out of range.
	Key(i int) []byte
	// Label returns the label bytes delivered with record i, nil when the
	// dataset has none. It panics if i is out of range.
	Label(i int) []byte
	// ValueLen is the length of record i's value once decoded.
	ValueLen(i int) int64
	// Blocks is the number of blocks. Their numbers follow the records',
	// not the file's order (LMDB values lie where the B+tree put them).
	Blocks() int
	// BlockOf says which block holds record i and where in its decoded
	// bytes the value starts.
	BlockOf(i int) (block int, off int64)
	// Pieces appends the stored pieces of block b, in file order, to dst.
	Pieces(b int, dst []Extent) []Extent
	// DecodedLen is the length of block b once decoded.
	DecodedLen(b int) int64
	// Decoder returns nil when every block is stored as is.
	Decoder() Decoder
	// Info describes the dataset for reports, for identity checks and for
	// the file the node readers open.
	Info() Info
}

// Decoder turns a block's stored pieces into its decoded bytes. A Decoder
// may call libraries that are not thread-safe (libhdf5): it then serialises
// those calls itself, so Decode stays safe for concurrent use.
type Decoder interface {
	// Decode writes block b's DecodedLen(b) bytes into dst, given the bytes
	// of its pieces in the order Pieces lists them. A piece whose bytes do
	// not decode gives an error that names the block (and the chunk) and
	// wraps ErrCorrupt.
	Decode(b int, pieces [][]byte, dst []byte) error
}

// Info describes a dataset.
type Info struct {
	Format   string `json:"format"`    // "lmdb" or "hdf5"
	Path     string `json:"path"`      // the data file the node readers read
	FileSize int64  `json:"file_size"` // bytes of the data file
	// Identity names the snapshot the Source describes: equal identities
	// mean the same records with the same bytes (LMDB: the transaction id
	// and file size; HDF5: the dataset's name, shape, type and file size and
	// modification time). Resume states and index sidecars carry it.
	Identity string `json:"identity"`
	// ValueBytes is the sum of all ValueLen.
	ValueBytes int64 `json:"value_bytes"`
	// Note, when set, is worth saying once in a report: how the source
	// reads and why, when that is not the fast way (HDF5 read through
	// libhdf5 because of a filter lmdbio does not decode).
	Note string `json:"note,omitempty"`
}

// Verifier is implemented by sources whose stored blocks carry bytes that
// the node reader can check cheaply after a read (LMDB: the page or node
// header in front of a value), so that an index that no longer matches the
// file gives an error instead of wrong bytes.
type Verifier interface {
	// Verify checks block b's bytes as read (decoded, when there is a
	// Decoder). A mismatch gives an error that names the block and wraps
	// ErrCorrupt.
	Verify(b int, block []byte) error
	// HeadLen is how many bytes at the start of block b VerifyHead checks:
	// all that Verify looks at but the block's length.
	HeadLen(b int) int64
	// VerifyHead checks the first HeadLen(b) bytes of block b, as stored,
	// for a caller that reads them alone rather than the whole block.
	VerifyHead(b int, head []byte) error
}

// ErrCorrupt marks a block whose bytes are not what the source describes.
var ErrCorrupt = failure.New(failure.Input, "corrupt block")
