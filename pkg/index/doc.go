// Package index is lmdbio's metadata snapshot of a dataset: for every record
// of an LMDB database, its key and the offset and length of its value in the
// data file.
//
// # Overview
//
// Build walks the database's branch and leaf pages once (package lmdbfmt)
// without reading values. The result serialises to a compact, checksummed
// file (MarshalBinary, Unmarshal) that is kept beside the database or in a
// cache directory and broadcast to every rank, so a job of thousands of
// processes walks the B+tree once instead of once per process. Load finds a
// fresh saved index or builds and saves one.
//
// An Index is identified with the file it describes by Identity: size,
// committed transaction id and modification time. A saved index whose
// identity differs from the file's is stale and is never used.
//
// # Invariants
//
//   - Records are in the database's key order; record i's key is
//     Key(i) and its value lies at Extent(i), inside the file (offset >= 0,
//     offset+length <= Identity().Size).
//   - Unmarshal accepts only what MarshalBinary produces: magic, version,
//     consistent sizes, values placed where LMDB can place them (after a
//     page header or a leaf node, inside a page) and a CRC-32C over
//     everything; anything else is ErrCorrupt, never a panic or an
//     allocation larger than the input.
//   - Load uses a saved index only if it is a regular file of a size an
//     index of the database can have, its identity is the file's, and a
//     sample of records is where it says (the bytes in front of each value
//     identify it). Source's Verify makes the same check for every record
//     a reader reads.
//
// # Concurrency
//
// An Index is immutable: all methods are safe for concurrent use.
package index
