package lmdbfmt

// Checks of one branch or leaf page image. Every offset taken from the page
// is validated here before the walker slices with it.

// checkTreePage validates the header of a branch or leaf page and returns its
// number of nodes.
func checkTreePage(pgno uint64, page []byte) (n int, leaf bool, err error) {
	psize := len(page)
	h := decodePageHeader(page)
	if h.pgno != pgno {
		return 0, false, corruptf(pgno, "page header says page %d", h.pgno)
	}
	switch h.flags & pTypeMask {
	case pBranch:
	case pLeaf:
		leaf = true
	default:
		return 0, false, corruptf(pgno, "expected a branch or leaf page, found flags 0x%x", h.flags)
	}
	lower, upper := int(h.lower), int(h.upper)
	if lower < pageHeaderSize || (lower-pageHeaderSize)%2 != 0 || lower > upper || upper > psize {
		return 0, false, corruptf(pgno, "bad free-space bounds lower=%d upper=%d", lower, upper)
	}
	n = (lower - pageHeaderSize) / 2
	if n == 0 {
		return 0, false, corruptf(pgno, "page has no nodes")
	}
	return n, leaf, nil
}

// node locates node i of a checked page: its header and the end of its key.
func node(pgno uint64, page []byte, i int, kind string) (nh nodeHeader, off, keyEnd int, err error) {
	upper := int(decodePageHeader(page).upper)
	off = nodePtr(page, i)
	if off < upper || off+nodeHeaderSize > len(page) {
		return nh, 0, 0, corruptf(pgno, "%s node %d at offset %d outside the node area %d..%d", kind, i, off, upper, len(page))
	}
	nh = decodeNode(page[off:])
	keyEnd = off + nodeHeaderSize + int(nh.ksize)
	if keyEnd > len(page) {
		return nh, 0, 0, corruptf(pgno, "%s node %d key extends past page end", kind, i)
	}
	return nh, off, keyEnd, nil
}

// branchChild returns the child page number of node i of a branch page.
func branchChild(pgno uint64, page []byte, i int, lastPg uint64) (uint64, error) {
	nh, _, _, err := node(pgno, page, i, "branch")
	if err != nil {
		return 0, err
	}
	child := nh.childPgno()
	if child < 2 || child > lastPg {
		return 0, corruptf(pgno, "branch node %d points to page %d outside pages 2..%d", i, child, lastPg)
	}
	return child, nil
}

// leafNode is a decoded leaf node: key and value location within the page or
// in overflow pages.
type leafNode struct {
	key      []byte
	dataOff  int    // inline: value offset in the page
	dataSize uint32 // value length
	overflow uint64 // first overflow page, if bigData
	bigData  bool
}

// parseLeaf decodes node i of a checked leaf page.
func parseLeaf(pgno uint64, page []byte, i int) (leafNode, error) {
	nh, off, keyEnd, err := node(pgno, page, i, "leaf")
	if err != nil {
		return leafNode{}, err
	}
	ln := leafNode{key: page[off+nodeHeaderSize : keyEnd : keyEnd], dataSize: nh.dataSize()}
	switch {
	case nh.flags&fSubData != 0:
		return leafNode{}, unsupportedf("page %d: leaf node %d (key %q) is a named sub-database; only the main database is read",
			pgno, i, printable(ln.key))
	case nh.flags&fDupData != 0:
		return leafNode{}, unsupportedf("page %d: leaf node %d has sorted duplicates (MDB_DUPSORT)", pgno, i)
	case nh.flags&^fBigData != 0:
		return leafNode{}, corruptf(pgno, "leaf node %d has unknown flags 0x%x", i, nh.flags)
	}
	if nh.flags&fBigData != 0 {
		if keyEnd+8 > len(page) {
			return leafNode{}, corruptf(pgno, "leaf node %d overflow page number extends past page end", i)
		}
		ln.bigData = true
		ln.overflow = overflowPgno(page[keyEnd:])
		return ln, nil
	}
	if uint64(keyEnd)+uint64(ln.dataSize) > uint64(len(page)) {
		return leafNode{}, corruptf(pgno, "leaf node %d value of %d bytes extends past page end", i, ln.dataSize)
	}
	ln.dataOff = keyEnd
	return ln, nil
}

// printable shortens a key for an error message.
func printable(k []byte) []byte {
	if len(k) > 64 {
		return k[:64]
	}
	return k
}
