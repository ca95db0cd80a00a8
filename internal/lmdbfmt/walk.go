package lmdbfmt

import (
	"bytes"
	"fmt"
)

// Record locates one record of the main database.
type Record struct {
	// Key is the record's key. It aliases a page buffer and is valid only
	// during the call of the Walk callback; copy it to keep it.
	Key []byte
	// Offset is the file offset of the value's first byte.
	Offset int64
	// Length is the value's size in bytes.
	Length int64
	// Overflow reports that the value lives in overflow pages (it was too
	// large for a leaf page); the value bytes are then contiguous in the file
	// and page-aligned plus the 16-byte page header.
	Overflow bool
}

// Stats counts what one Walk visited.
type Stats struct {
	// BranchPages and LeafPages are the tree pages read.
	BranchPages, LeafPages uint64
	// Records is the number of records reported.
	Records uint64
	// OverflowRecords is how many of them live in overflow pages, and
	// OverflowPages how many pages those values span (not read).
	OverflowRecords, OverflowPages uint64
	// KeyBytes and ValueBytes sum the key and value sizes.
	KeyBytes, ValueBytes uint64
	// Depth is the height of the tree walked.
	Depth int
}

// Walk calls fn for every record of the main database in key order. It reads
// branch and leaf pages only, never value bytes. It stops at the first error
// from fn and returns it unchanged.
//
// Corruption found on the way returns an error wrapping ErrCorrupt that names
// the page; a named sub-database or duplicate data returns ErrUnsupported.
// Records already passed to fn before such an error stay valid facts about
// the file, but the walk is incomplete.
func (f *File) Walk(fn func(r Record) error) error {
	_, err := f.WalkStats(fn)
	return err
}

// WalkStats is Walk that also returns what was visited. After a complete walk
// it checks the counts against the meta page (entries, branch, leaf and
// overflow pages) and reports a mismatch as corruption.
func (f *File) WalkStats(fn func(r Record) error) (Stats, error) {
	w := newWalker(f, fn)
	err := w.run()
	return w.stats, err
}

// walker holds the state of one depth-first walk.
type walker struct {
	f       *File
	m       Meta
	psize   uint64
	fn      func(Record) error
	stats   Stats
	visited pageSet  // a page is entered at most once
	bufs    [][]byte // one page buffer per tree level
	prev    []byte   // previous key, for the order check
	ordered bool     // keys must ascend bytewise (default comparator)

	// onPage, when set (tests), sees every tree page entered.
	onPage func(pgno uint64, leaf bool, level int)
}

func newWalker(f *File, fn func(Record) error) *walker {
	m := f.meta
	return &walker{
		f:       f,
		m:       m,
		psize:   uint64(m.PageSize),
		fn:      fn,
		visited: pageSet{},
		bufs:    make([][]byte, m.Depth),
		ordered: m.Flags&(dbReverseKey|dbIntegerKey) == 0,
	}
}

// frame is a branch page on the walk's stack and the next child to visit.
type frame struct {
	pgno uint64
	page []byte
	n, i int
}

func (w *walker) run() error {
	if w.m.Root == invalidPgno {
		return nil
	}
	stack := make([]frame, 0, w.m.Depth)
	next, parent := w.m.Root, uint64(w.m.MetaPage)
	for {
		// Enter page next at level len(stack)+1.
		level := len(stack) + 1
		if level > w.m.Depth {
			return corruptf(parent, "tree is deeper than the meta's depth %d", w.m.Depth)
		}
		page, err := w.enter(next, parent, level)
		if err != nil {
			return err
		}
		n, leaf, err := checkTreePage(next, page)
		if err != nil {
			return err
		}
		if w.onPage != nil {
			w.onPage(next, leaf, level)
		}
		if leaf != (level == w.m.Depth) {
			return corruptf(next, "%s page at level %d of a tree of depth %d", pageKind(leaf), level, w.m.Depth)
		}
		if leaf {
			w.stats.LeafPages++
			if err := w.leaf(next, page, n); err != nil {
				return err
			}
		} else {
			w.stats.BranchPages++
			stack = append(stack, frame{pgno: next, page: page, n: n})
		}
		// Find the next child to enter, popping finished branch pages.
		for {
			if len(stack) == 0 {
				w.stats.Depth = w.m.Depth
				return w.checkCounts()
			}
			top := &stack[len(stack)-1]
			if top.i < top.n {
				child, err := branchChild(top.pgno, top.page, top.i, w.m.LastPgno)
				if err != nil {
					return err
				}
				top.i++
				next, parent = child, top.pgno
				break
			}
			stack = stack[:len(stack)-1]
		}
	}
}

func pageKind(leaf bool) string {
	if leaf {
		return "leaf"
	}
	return "branch"
}

// mark records that page pgno is in use and reports whether it already was.
func (w *walker) mark(pgno uint64) (seen bool) { return w.visited.add(pgno) }

// pageSet is a set of page numbers: a bitmap kept in chunks that are
// allocated when first touched, so its memory follows the pages a walk
// visits, not the size the meta claims or a sparse file spans.
type pageSet map[uint64]*[pageSetChunk / 64]uint64

const pageSetChunk = 1 << 15 // pages per chunk (4 KiB of bits)

// add puts pgno in the set and reports whether it was there already.
func (s pageSet) add(pgno uint64) (had bool) {
	c := s[pgno/pageSetChunk]
	if c == nil {
		c = new([pageSetChunk / 64]uint64)
		s[pgno/pageSetChunk] = c
	}
	i := pgno % pageSetChunk
	word, bit := i/64, uint64(1)<<(i%64)
	had = c[word]&bit != 0
	c[word] |= bit
	return had
}

// enter reads tree page pgno into the buffer for its level.
func (w *walker) enter(pgno, parent uint64, level int) ([]byte, error) {
	if pgno < 2 || pgno > w.m.LastPgno {
		return nil, corruptf(parent, "child page %d outside pages 2..%d", pgno, w.m.LastPgno)
	}
	if w.mark(pgno) {
		return nil, corruptf(parent, "page %d is referenced twice (cycle or shared page)", pgno)
	}
	buf := w.bufs[level-1]
	if buf == nil {
		buf = make([]byte, w.psize)
		w.bufs[level-1] = buf
	}
	if err := readFull(w.f.r, buf, int64(pgno*w.psize)); err != nil {
		return nil, fmt.Errorf("lmdbfmt: page %d: %w", pgno, err)
	}
	return buf, nil
}

// leaf reports the n records of leaf page pgno.
func (w *walker) leaf(pgno uint64, page []byte, n int) error {
	for i := range n {
		ln, err := parseLeaf(pgno, page, i)
		if err != nil {
			return err
		}
		if w.ordered && w.stats.Records > 0 && bytes.Compare(w.prev, ln.key) >= 0 {
			return corruptf(pgno, "leaf node %d key is not greater than the previous key", i)
		}
		w.prev = append(w.prev[:0], ln.key...)
		rec := Record{Key: ln.key, Length: int64(ln.dataSize)}
		if ln.bigData {
			if err := w.overflow(pgno, i, ln); err != nil {
				return err
			}
			rec.Offset = int64(ln.overflow*w.psize) + pageHeaderSize
			rec.Overflow = true
		} else {
			rec.Offset = int64(pgno*w.psize) + int64(ln.dataOff)
		}
		w.stats.Records++
		w.stats.KeyBytes += uint64(len(ln.key))
		w.stats.ValueBytes += uint64(ln.dataSize)
		if err := w.fn(rec); err != nil {
			return err
		}
	}
	return nil
}

// overflow checks the extent of an overflow value without reading it (or,
// with Options.VerifyOverflow, reading only its first page header).
func (w *walker) overflow(pgno uint64, i int, ln leafNode) error {
	first, last := ln.overflow, w.m.LastPgno
	npages := overflowPages(uint64(ln.dataSize), w.psize)
	if first < 2 || first > last || npages > last-first+1 {
		return corruptf(pgno, "leaf node %d overflow pages %d..+%d outside pages 2..%d", i, first, npages, last)
	}
	if w.mark(first) {
		return corruptf(pgno, "leaf node %d overflow page %d is also used elsewhere", i, first)
	}
	w.stats.OverflowRecords++
	w.stats.OverflowPages += npages
	if !w.f.opt.VerifyOverflow {
		return nil
	}
	var hb [pageHeaderSize]byte
	if err := readFull(w.f.r, hb[:], int64(first*w.psize)); err != nil {
		return fmt.Errorf("lmdbfmt: page %d: %w", first, err)
	}
	h := decodePageHeader(hb[:])
	if h.pgno != first || h.flags&pTypeMask != pOverflow || uint64(h.pages) < npages {
		return corruptf(first, "overflow page of leaf page %d node %d: header page %d flags 0x%x pages %d (want %d)",
			pgno, i, h.pgno, h.flags, h.pages, npages)
	}
	return nil
}

// checkCounts compares a complete walk with the meta's counters.
func (w *walker) checkCounts() error {
	s, m := w.stats, w.m
	// liblmdb may keep a value's old, larger overflow run when it rewrites
	// the value in the same transaction, so the meta can count more
	// overflow pages than the values need, never fewer.
	if s.Records != m.Entries || s.BranchPages != m.BranchPages || s.LeafPages != m.LeafPages || s.OverflowPages > m.OverflowPages {
		return corruptf(uint64(m.MetaPage), "meta counts (entries %d, branch %d, leaf %d, overflow %d) differ from the tree (%d, %d, %d, %d)",
			m.Entries, m.BranchPages, m.LeafPages, m.OverflowPages, s.Records, s.BranchPages, s.LeafPages, s.OverflowPages)
	}
	return nil
}
