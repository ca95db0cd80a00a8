package index

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/lmdbio/lmdbio/internal/source"
)

// What lies in front of a value in an LMDB data file (liblmdb 0.9, 64-bit
// little-endian; mdb.c), so that reading those few bytes with the value
// checks that the index still describes the file:
//
//   - a value in overflow pages starts right after the 16-byte header of
//     its first page: page number (uint64 at 0), flags (uint16 at 10, with
//     P_OVERFLOW) and the run's page count (uint32 at 12);
//   - a value inside a leaf page follows its node: data size (uint16 at 0,
//     high half at 2), node flags (uint16 at 4, 0 for a plain value), key
//     size (uint16 at 6), then the key, then the value. Nodes start after
//     the page header and at least one 2-byte node pointer.
//
// So a value at page offset 16 is in overflow pages, and any other is in a
// leaf page, after 8+len(key) bytes of node.
const (
	lmdbPageHeader = 16   // PAGEHDRSZ
	lmdbNodeHeader = 8    // NODESIZE
	lmdbOverflow   = 0x04 // P_OVERFLOW
	lmdbPageTypes  = 0x01 | 0x02 | 0x04 | 0x08 | 0x20 | 0x40
	minPageSize    = 512
	maxPageSize    = 65536
)

func validPageSize(ps uint32) bool {
	return ps >= minPageSize && ps <= maxPageSize && ps&(ps-1) == 0
}

// overflow reports whether record i's value lies in overflow pages.
func (x *Index) overflow(i int) bool { return x.heads().overflow(x.off[i]) }

// prefixLen is how many bytes in front of record i's value identify it.
func (x *Index) prefixLen(i int) int64 {
	return x.heads().prefixLen(x.off[i], int(x.keyOff[i+1]-x.keyOff[i]))
}

// heads is the check of the bytes in front of the index's values.
func (x *Index) heads() Heads { return Heads{PageSize: int64(x.psize)} }

// checkPlace checks that record i's value, with what identifies it, sits
// where LMDB can put a value: an overflow value right after the header of a
// page, a leaf value after its node, node and value inside one page after
// its header and a node pointer. (An empty value whose node ends its page
// starts at the next page's first byte.)
func (x *Index) checkPlace(i int) error {
	ps := int64(x.psize)
	start := x.off[i] - x.prefixLen(i) // the page header's or the node's first byte
	if start < 2*ps {
		return corruptf("record %d: value at offset %d lies in a meta page", i, x.off[i])
	}
	if x.overflow(i) {
		return nil
	}
	if at := start % ps; at < lmdbPageHeader+2 || at+x.prefixLen(i)+int64(x.size[i]) > ps {
		return corruptf("record %d: a leaf node of a %d-byte key and a %d-byte value at page offset %d does not fit in a %d-byte page",
			i, x.keyOff[i+1]-x.keyOff[i], x.size[i], at, ps)
	}
	return nil
}

// verifyPrefix checks the bytes in front of record i's value: the overflow
// page header, or the leaf node's header and key.
func (x *Index) verifyPrefix(i int, prefix []byte) error {
	if problem := x.heads().problem(x.off[i], int64(x.size[i]), x.Key(i), prefix); problem != "" {
		return mismatch(i, x.off[i], problem)
	}
	return nil
}

// Heads checks the bytes in front of values in an LMDB data file with
// pages of PageSize bytes, from each value's offset, length and key alone:
// what a learner that maps the file needs to check the values it is handed,
// without the index, on the page it reads anyway.
type Heads struct {
	PageSize int64 `json:"page_size"`
}

// Check checks the bytes in front of record i's value, n bytes at offset
// off of file (the data file's bytes, mapped), whose key is key. A mismatch
// gives an error that wraps ErrCorrupt and source.ErrCorrupt.
func (h Heads) Check(file []byte, i int, off, n int64, key []byte) error {
	if !validPageSize(uint32(h.PageSize)) || int64(uint32(h.PageSize)) != h.PageSize {
		return mismatch(i, off, fmt.Sprintf("%d is not an LMDB page size", h.PageSize))
	}
	start := off - h.prefixLen(off, len(key))
	if start < 0 || off > int64(len(file)) {
		return mismatch(i, off, fmt.Sprintf("the bytes in front of the value lie outside the file's %d bytes", len(file)))
	}
	if problem := h.problem(off, n, key, file[start:off]); problem != "" {
		return mismatch(i, off, problem)
	}
	return nil
}

// overflow reports whether a value at offset off lies in overflow pages.
func (h Heads) overflow(off int64) bool { return off%h.PageSize == lmdbPageHeader }

// prefixLen is how many bytes in front of a value at offset off, with a
// key of keyLen bytes, identify it.
func (h Heads) prefixLen(off int64, keyLen int) int64 {
	if h.overflow(off) {
		return lmdbPageHeader
	}
	return lmdbNodeHeader + int64(keyLen)
}

// problem says how prefix, the bytes in front of an n-byte value at offset
// off with key key, differ from what LMDB puts there; "" when they do not.
func (h Heads) problem(off, n int64, key, prefix []byte) string {
	if want := h.prefixLen(off, len(key)); int64(len(prefix)) != want {
		return fmt.Sprintf("%d bytes in front of the value, want %d", len(prefix), want)
	}
	if h.overflow(off) {
		pgno := uint64(off-lmdbPageHeader) / uint64(h.PageSize)
		got, flags, pages := le.Uint64(prefix), le.Uint16(prefix[10:]), le.Uint32(prefix[12:])
		need := (lmdbPageHeader-1+uint64(n))/uint64(h.PageSize) + 1 // OVPAGES
		if got != pgno || flags&lmdbPageTypes != lmdbOverflow || uint64(pages) < need {
			return fmt.Sprintf("overflow page %d has header page %d, flags 0x%x, %d pages (want %d)", pgno, got, flags, pages, need)
		}
		return ""
	}
	dsize := int64(le.Uint16(prefix)) | int64(le.Uint16(prefix[2:]))<<16
	flags, ksize := le.Uint16(prefix[4:]), le.Uint16(prefix[6:])
	if dsize != n || flags != 0 || int(ksize) != len(key) || !bytes.Equal(prefix[lmdbNodeHeader:], key) {
		return fmt.Sprintf("leaf node holds a %d-byte value, flags 0x%x, key %q (want %d bytes, key %q)",
			dsize, flags, printable(prefix[lmdbNodeHeader:]), n, printable(key))
	}
	return ""
}

// mismatch is the error of a record whose bytes in the file are not what
// the index says: the index is damaged or describes another file.
func mismatch(i int, off int64, problem string) error {
	return fmt.Errorf("index: record %d at offset %d: %s: the file does not match its index: %w: %w",
		i, off, problem, ErrCorrupt, source.ErrCorrupt)
}

// printable shortens a key for an error message.
func printable(k []byte) []byte { return k[:min(len(k), 32)] }

// spotChecks is how many records Load checks against the file before it
// trusts a saved index. A saved index that matches the file's identity and
// its own checksum, yet does not describe the file, is off nearly
// everywhere (another file of the same size and times), so a few records
// spread over it find it out; and node readers check every record they read
// anyway. Each check is a request to storage in every Open, and the
// requests queue at the storage servers (docs/decisions/0005-index-spot-checks.md).
const spotChecks = 4

// spotCheck reads the bytes in front of up to spotChecks values, spread over
// the index from the first record to the last, and checks them: a few small
// reads that catch a saved index whose checksum holds but whose offsets do
// not describe the file. The reads go out together (io.ReaderAt allows
// parallel calls), as one after another they delay every Open. The first
// failing record in index order is the one reported.
func (x *Index) spotCheck(r io.ReaderAt) error {
	n := x.Len()
	checks := min(n, spotChecks)
	errs := make([]error, checks)
	var wg sync.WaitGroup
	for s := range checks {
		i := s * (n - 1) / max(checks-1, 1)
		wg.Go(func() { errs[s] = x.spotCheckOne(r, i) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// spotCheckOne reads and checks the bytes in front of record i's value.
func (x *Index) spotCheckOne(r io.ReaderAt, i int) error {
	prefix := make([]byte, x.prefixLen(i))
	if _, err := r.ReadAt(prefix, x.off[i]-int64(len(prefix))); err != nil {
		return fmt.Errorf("index: record %d: reading the bytes in front of it: %w", i, err)
	}
	return x.verifyPrefix(i, prefix)
}
