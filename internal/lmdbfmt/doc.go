// Package lmdbfmt reads the on-disk format of LMDB databases (liblmdb 0.9.x,
// 64-bit builds) without liblmdb, without mmap and without reading values.
//
// # Overview
//
// An LMDB file is an array of fixed-size pages. Pages 0 and 1 each hold a
// meta record; the one with the higher transaction id is the current
// snapshot. Both must validate: like liblmdb, Open refuses a file with a
// damaged meta page rather than read the other page's, maybe older,
// snapshot. The snapshot's main database is a B+tree: branch pages point
// to child pages, leaf pages hold (key, value) nodes. A value either sits
// inside its leaf node or, when it is large, in a run of contiguous
// overflow pages whose first page number the node stores.
//
// Open reads and validates the two meta pages. Walk visits the tree in key
// order and reports, for every record, its key and where its value bytes lie
// in the file (Record.Offset, Record.Length). Walk reads branch and leaf pages
// only: the bytes of overflow values are never read, which is what makes
// building an index of a multi-gigabyte dataset cheap.
//
// The layout facts (struct sizes, field offsets, flag values) live in
// layout.go; all byte decoding is there too, with encoding/binary.
//
// # Invariants
//
//   - Every number read from disk is checked before it is used: page numbers
//     against the meta's last page and the file size, node offsets and sizes
//     against the page, depth against the meta's depth and a hard limit.
//     No page is visited twice, so a corrupt tree cannot loop.
//   - Bad input never panics. Errors wrap ErrNotLMDB (not an LMDB file),
//     ErrUnsupported (valid LMDB this package does not read) or ErrCorrupt
//     (damaged), and name the page where the damage was found.
//   - A Record returned by Walk has 0 <= Offset and Offset+Length <= file size.
//
// # Concurrency
//
// A File is immutable after Open. Walk may be called concurrently from
// several goroutines if the underlying io.ReaderAt allows concurrent ReadAt
// (as *os.File does); each Walk uses its own buffers.
package lmdbfmt
