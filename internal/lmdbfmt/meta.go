package lmdbfmt

import (
	"errors"
	"fmt"
	"io"
)

// Meta describes the database snapshot a File reads: the newer meta page's
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
		return Meta{}, &metaError{pgno: pgno, why: fmt.Sprintf("bad magic 0x%08x", m.magic), is: ErrNotLMDB, liblmdb: true}
	}
	// liblmdb looks at the meta flag before the version, and so reports a
	// page without the flag as damaged whatever its version says.
	if hdr.flags&pMeta == 0 {
		return Meta{}, damagedf(pgno, true, "page flags 0x%x lack the meta flag", hdr.flags)
	}
	if m.version != dataVersion {
		return Meta{}, unsupportedf("page %d: format version %d (want %d)", pgno, m.version, dataVersion)
	}
	if hdr.pgno != pgno {
		return Meta{}, damagedf(pgno, false, "header says page %d", hdr.pgno)
	}
	ps := m.free.pad // mm_psize
	if ps < minPageSize || ps > maxPageSize || ps&(ps-1) != 0 {
		return Meta{}, damagedf(pgno, false, "bad page size %d", ps)
	}
	if psize != 0 && int(ps) != psize {
		return Meta{}, damagedf(pgno, false, "page size %d differs from page 0's %d", ps, psize)
	}
	// (lastPg+1)*ps must fit in the file; dividing avoids overflow.
	pages := uint64(size) / uint64(ps)
	if m.lastPg < 1 {
		return Meta{}, damagedf(pgno, false, "last page %d", m.lastPg)
	}
	if m.lastPg >= pages {
		// liblmdb never shrinks a data file: the file was cut short.
		return Meta{}, corruptf(pgno, "last page %d outside the file (%d bytes holds %d pages of %d bytes; truncated?)",
			m.lastPg, size, pages, ps)
	}
	if err := checkMainDB(m.main, m.lastPg); err != nil {
		return Meta{}, damagedf(pgno, false, "%s", err)
	}
	return Meta{
		MetaPage:      int(pgno),
		TxnID:         m.txnID,
		PageSize:      int(ps),
		MapSize:       m.mapSize,
		LastPgno:      m.lastPg,
		Root:          m.main.root,
		Depth:         int(m.main.depth),
		Entries:       m.main.entries,
		BranchPages:   m.main.branchPages,
		LeafPages:     m.main.leafPages,
		OverflowPages: m.main.overflowPages,
		Flags:         m.main.flags,
	}, nil
}

// checkMainDB checks a meta page's record of the main database against the
// page's last page in use.
func checkMainDB(db dbRecord, lastPg uint64) error {
	if db.root == invalidPgno {
		if db.depth != 0 || db.entries != 0 {
			return fmt.Errorf("empty main database with depth %d and %d entries", db.depth, db.entries)
		}
	} else {
		if db.root < 2 || db.root > lastPg {
			return fmt.Errorf("main root page %d outside pages 2..%d", db.root, lastPg)
		}
		if db.depth < 1 || db.depth > maxDepth {
			return fmt.Errorf("main tree depth %d outside 1..%d", db.depth, maxDepth)
		}
	}
	if db.flags&^dbKnownFlags != 0 {
		return fmt.Errorf("unknown main database flags 0x%x", db.flags)
	}
	return nil
}

// metaReads is how many times pickMeta reads the meta pages before it
// calls a file damaged: a writer committing meanwhile rewrites one of them,
// and a read may catch it half written, which a moment later reads whole.
// Damage fails every read.
const metaReads = 3

// pickMeta reads both meta pages and returns the newer snapshot. Both must
// be valid: liblmdb writes both when it creates a database, and itself
// refuses a file when either lacks the meta flag or LMDB's magic, or has
// another format version. Reading the other page's snapshot instead, which
// may be older, would leave records out without a word. The other fields
// of both pages are checked too: liblmdb never writes them out of range,
// so a page that has one is damaged, even where liblmdb would not look.
func pickMeta(r io.ReaderAt, size int64) (m Meta, err error) {
	if size <= 0 {
		return Meta{}, fmt.Errorf("lmdbfmt: empty file: %w", ErrNotLMDB)
	}
	if size < pageHeaderSize+metaSize {
		return Meta{}, fmt.Errorf("lmdbfmt: file of %d bytes is too small for a meta page: %w", size, ErrNotLMDB)
	}
	for range metaReads {
		if m, err = readMetas(r, size); err == nil {
			break
		}
	}
	return m, err
}

// readMetas reads and validates both meta pages once, and returns the one
// with the higher transaction id.
func readMetas(r io.ReaderAt, size int64) (Meta, error) {
	m0, err := readMeta(r, size, 0, 0)
	if err != nil {
		return Meta{}, page0Error(r, size, err)
	}
	m1, err := readMeta(r, size, 1, m0.PageSize)
	if err != nil {
		return Meta{}, damaged(err) // page 0 shows the file is LMDB
	}
	if m1.TxnID > m0.TxnID {
		return m1, nil
	}
	return m0, nil
}

// page0Error says why page 0 is unusable. Without LMDB's magic there, the
// file is either not LMDB at all or an LMDB file whose page 0 is damaged:
// page 1, read at every legal page size, tells which.
func page0Error(r io.ReaderAt, size int64, err error) error {
	if errors.Is(err, ErrNotLMDB) && Meta1Magic(r, size) {
		return damaged(err)
	}
	return err
}

// damaged reclassifies a bad magic, which alone means "not LMDB", as
// damage, once the other meta page has shown that the file is LMDB.
func damaged(err error) error {
	var bad *metaError
	if errors.As(err, &bad) {
		bad.is = ErrCorrupt
	}
	return err
}

// Meta1Magic reports whether page 1 carries LMDB's magic at some legal page
// size, for when page 0, which would say the size, is unusable: such a file
// is LMDB, damaged.
func Meta1Magic(r io.ReaderAt, size int64) bool {
	var buf [pageHeaderSize + 4]byte
	for ps := int64(minPageSize); ps <= maxPageSize && ps+int64(len(buf)) <= size; ps *= 2 {
		if readFull(r, buf[:], ps) == nil && magicAt(buf[:], pageHeaderSize) == metaMagic {
			return true
		}
	}
	return false
}

// metaError is a meta page that fails validation. A damaged page (is
// ErrCorrupt) is reported with what to do: both pages must be valid, and
// nothing here can repair one.
type metaError struct {
	pgno    uint64
	why     string // what is wrong with the page
	is      error  // ErrCorrupt, or ErrNotLMDB for a bad magic in a file not shown to be LMDB
	liblmdb bool   // liblmdb refuses the file for it too
}

func (e *metaError) Error() string {
	if e.is != ErrCorrupt {
		return fmt.Sprintf("lmdbfmt: page %d: %s: %v", e.pgno, e.why, e.is)
	}
	also := ""
	if e.liblmdb {
		also = "; liblmdb refuses such a file too"
	}
	return fmt.Sprintf("lmdbfmt: meta page %d is damaged (%s)%s: restore the file from a copy or rebuild it: %v",
		e.pgno, e.why, also, e.is)
}

func (e *metaError) Unwrap() error { return e.is }

// damagedf returns the metaError of a damaged meta page.
func damagedf(pgno uint64, liblmdb bool, format string, args ...any) error {
	return &metaError{pgno: pgno, why: fmt.Sprintf(format, args...), is: ErrCorrupt, liblmdb: liblmdb}
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
