package lmdbfmt

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Meta describes the database snapshot a File reads: the winning meta page's
// record of the main database.
type Meta struct {
	// MetaPage is the meta page (0 or 1) that holds the snapshot.
	MetaPage int
	// TxnID is the id of the write transaction that committed the snapshot.
	TxnID uint64
	// PageSize is the database page size in bytes.
	PageSize int
	// MapSize is the memory map size the writer used; informational.
	MapSize uint64
	// LastPgno is the last page in use; pages after it are free space.
	LastPgno uint64
	// Root is the main tree's root page, or NoRoot for an empty database.
	Root uint64
	// Depth is the main tree's height: 0 when empty, 1 when the root is a leaf.
	Depth int
	// Entries is the number of records in the main database.
	Entries uint64
	// BranchPages, LeafPages and OverflowPages count the main tree's pages
	// of each type, as liblmdb recorded them.
	BranchPages, LeafPages, OverflowPages uint64
	// Flags are the main database's persistent flags (MDB_REVERSEKEY, ...).
	Flags uint16
}

// NoRoot is Meta.Root of an empty database (liblmdb's P_INVALID).
const NoRoot = invalidPgno

// readMeta reads and validates the meta record in page pgno, assuming pages
// of psize bytes. psize 0 means "take the page size from this meta" (page 0).
func readMeta(r io.ReaderAt, size int64, pgno uint64, psize int) (Meta, error) {
	off := int64(pgno) * int64(psize)
	if off+pageHeaderSize+metaSize > size {
		return Meta{}, corruptf(pgno, "meta page lies past the end of the file (%d bytes)", size)
	}
	var buf [pageHeaderSize + metaSize]byte
	if err := readFull(r, buf[:], off); err != nil {
		return Meta{}, fmt.Errorf("lmdbfmt: page %d: reading meta: %w", pgno, err)
	}
	return parseMeta(buf[:], pgno, psize, size)
}

// parseMeta validates a meta page image (header plus MDB_meta).
func parseMeta(buf []byte, pgno uint64, psize int, size int64) (Meta, error) {
	hdr := decodePageHeader(buf)
	m := decodeMeta(buf[pageHeaderSize:])
	if m.magic != metaMagic {
		if magicAt(buf, pageHeaderSize32) == metaMagic {
			return Meta{}, unsupportedf("page %d: 32-bit LMDB file (only 64-bit builds are read)", pgno)
		}
		return Meta{}, fmt.Errorf("lmdbfmt: page %d: bad magic 0x%08x: %w", pgno, m.magic, ErrNotLMDB)
	}
	if m.version != dataVersion {
		return Meta{}, unsupportedf("page %d: format version %d (want %d)", pgno, m.version, dataVersion)
	}
	if hdr.flags&pMeta == 0 || hdr.pgno != pgno {
		return Meta{}, corruptf(pgno, "not a meta page (flags 0x%x, header page %d)", hdr.flags, hdr.pgno)
	}
	ps := m.free.pad // mm_psize
	if ps < minPageSize || ps > maxPageSize || ps&(ps-1) != 0 {
		return Meta{}, corruptf(pgno, "bad page size %d", ps)
	}
	if psize != 0 && int(ps) != psize {
		return Meta{}, corruptf(pgno, "page size %d differs from page 0's %d", ps, psize)
	}
	// (lastPg+1)*ps must fit in the file; dividing avoids overflow.
	pages := uint64(size) / uint64(ps)
	if m.lastPg < 1 || m.lastPg >= pages {
		return Meta{}, truncatedError{corruptf(pgno, "last page %d outside the file (%d bytes holds %d pages of %d bytes; truncated?)",
			m.lastPg, size, pages, ps)}
	}
	db := m.main
	if db.root == invalidPgno {
		if db.depth != 0 || db.entries != 0 {
			return Meta{}, corruptf(pgno, "empty main database with depth %d and %d entries", db.depth, db.entries)
		}
	} else {
		if db.root < 2 || db.root > m.lastPg {
			return Meta{}, corruptf(pgno, "main root page %d outside pages 2..%d", db.root, m.lastPg)
		}
		if db.depth < 1 || db.depth > maxDepth {
			return Meta{}, corruptf(pgno, "main tree depth %d outside 1..%d", db.depth, maxDepth)
		}
	}
	if db.flags&^dbKnownFlags != 0 {
		return Meta{}, corruptf(pgno, "unknown main database flags 0x%x", db.flags)
	}
	return Meta{
		MetaPage:      int(pgno),
		TxnID:         m.txnID,
		PageSize:      int(ps),
		MapSize:       m.mapSize,
		LastPgno:      m.lastPg,
		Root:          db.root,
		Depth:         int(db.depth),
		Entries:       db.entries,
		BranchPages:   db.branchPages,
		LeafPages:     db.leafPages,
		OverflowPages: db.overflowPages,
		Flags:         db.flags,
	}, nil
}

// pickMeta reads both meta pages and returns the newest valid one. A meta
// page that fails validation is ignored when the other one is valid: liblmdb
// writes them alternately, so a torn write damages at most one.
func pickMeta(r io.ReaderAt, size int64) (Meta, error) {
	if size <= 0 {
		return Meta{}, fmt.Errorf("lmdbfmt: empty file: %w", ErrNotLMDB)
	}
	if size < pageHeaderSize+metaSize {
		return Meta{}, fmt.Errorf("lmdbfmt: file of %d bytes is too small for a meta page: %w", size, ErrNotLMDB)
	}
	m0, err0 := readMeta(r, size, 0, 0)
	var m1 Meta
	var err1 error
	if err0 == nil {
		m1, err1 = readMeta(r, size, 1, m0.PageSize)
	} else {
		m1, err1 = probeMeta1(r, size)
	}
	// liblmdb never shrinks a data file, so a meta page that needs more
	// pages than the file has means the file was cut short, and the older
	// snapshot's pages may be gone too: never fall back then.
	var cut truncatedError
	if errors.As(err0, &cut) || errors.As(err1, &cut) {
		return Meta{}, cut
	}
	switch {
	case err0 == nil && err1 == nil:
		if m1.TxnID > m0.TxnID {
			return m1, nil
		}
		return m0, nil
	case err0 == nil:
		return m0, nil
	case err1 == nil:
		return m1, nil
	}
	// Both bad: report the most specific reason.
	for _, e := range []error{err0, err1} {
		if errors.Is(e, ErrUnsupported) {
			return Meta{}, e
		}
	}
	if errors.Is(err0, ErrNotLMDB) && errors.Is(err1, ErrNotLMDB) {
		return Meta{}, err0
	}
	return Meta{}, fmt.Errorf("lmdbfmt: no valid meta page: %s; %s: %w", reason(err0), reason(err1), ErrCorrupt)
}

// truncatedError marks a meta page that describes a longer file than the
// one read.
type truncatedError struct{ error }

func (e truncatedError) Unwrap() error { return e.error }

// reason is err's message without the package prefix and sentinel suffix,
// for joining two errors into one line.
func reason(err error) string {
	s := strings.TrimPrefix(err.Error(), "lmdbfmt: ")
	for _, e := range []error{ErrCorrupt, ErrNotLMDB, ErrUnsupported} {
		s = strings.TrimSuffix(s, ": "+e.Error())
	}
	return s
}

// probeMeta1 finds page 1's meta when page 0 is unusable, so its page size is
// unknown: it tries every legal page size and takes the first one at which an
// LMDB meta page sits.
func probeMeta1(r io.ReaderAt, size int64) (Meta, error) {
	for ps := minPageSize; ps <= maxPageSize; ps *= 2 {
		if int64(ps)+pageHeaderSize+metaSize > size {
			break
		}
		m, err := readMeta(r, size, 1, ps)
		if !errors.Is(err, ErrNotLMDB) {
			return m, err // valid, or LMDB but unusable
		}
	}
	return Meta{}, fmt.Errorf("lmdbfmt: page 1: no meta page at any page size: %w", ErrNotLMDB)
}

// readFull reads len(buf) bytes at off; a short read means the file is
// shorter than the caller was told.
func readFull(r io.ReaderAt, buf []byte, off int64) error {
	n, err := r.ReadAt(buf, off)
	if n == len(buf) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return fmt.Errorf("short read of %d bytes at offset %d: %w", n, off, ErrCorrupt)
	}
	return err
}
