package lmdbfmt

import "encoding/binary"

// On-disk layout of liblmdb 0.9.x on 64-bit little-endian builds (mdb.c).
// All multi-byte fields are little-endian; pgno_t and size_t are 8 bytes.
//
// Page header (MDB_page):
//
//	0  pgno   uint64
//	8  pad    uint16
//	10 flags  uint16
//	12 lower  uint16  (overflow pages: 12 pages uint32)
//	14 upper  uint16
//	16 ptrs   [numkeys]uint16, offsets of the nodes from the page start
//
// Node (MDB_node), at ptrs[i] in a branch or leaf page:
//
//	0 lo     uint16  leaf: data size bits 0-15;  branch: child pgno bits 0-15
//	2 hi     uint16  leaf: data size bits 16-31; branch: child pgno bits 16-31
//	4 flags  uint16  leaf: F_* flags;            branch: child pgno bits 32-47
//	6 ksize  uint16
//	8 key    [ksize]byte, then the data (leaf only)
const (
	pageHeaderSize = 16 // PAGEHDRSZ
	nodeHeaderSize = 8  // NODESIZE
	dbSize         = 48 // sizeof(MDB_db)
	metaSize       = 8 + 8 + 8 + 2*dbSize + 8 + 8

	// 32-bit builds have a 12-byte page header, so their magic sits here.
	pageHeaderSize32 = 12
)

// Page flags (mp_flags).
const (
	pBranch   = 0x01
	pLeaf     = 0x02
	pOverflow = 0x04
	pMeta     = 0x08
	pDirty    = 0x10
	pLeaf2    = 0x20
	pSubP     = 0x40
	pTypeMask = pBranch | pLeaf | pOverflow | pMeta | pLeaf2 | pSubP
)

// Node flags (mn_flags) of leaf nodes.
const (
	fBigData = 0x01 // value is in overflow pages; data is their first pgno
	fSubData = 0x02 // value is a sub-database record (named DB or dup tree)
	fDupData = 0x04 // value holds duplicates (sub-page or sub-database)
)

// Database flags (md_flags) that persist on disk.
const (
	dbReverseKey = 0x02
	dbDupSort    = 0x04
	dbIntegerKey = 0x08
	dbDupFixed   = 0x10
	dbIntegerDup = 0x20
	dbReverseDup = 0x40
	dbKnownFlags = dbReverseKey | dbDupSort | dbIntegerKey | dbDupFixed | dbIntegerDup | dbReverseDup
	dbDupFlags   = dbDupSort | dbDupFixed | dbIntegerDup | dbReverseDup
)

const (
	metaMagic   = 0xBEEFC0DE // MDB_MAGIC
	dataVersion = 1          // MDB_DATA_VERSION of release builds
	invalidPgno = ^uint64(0) // P_INVALID: the root of an empty tree

	minPageSize = 512
	maxPageSize = 65536

	// maxDepth bounds the tree height; liblmdb's cursor stack holds 32 pages.
	maxDepth = 32
)

// pageHeader is a decoded MDB_page header.
type pageHeader struct {
	pgno  uint64
	flags uint16
	lower uint16
	upper uint16
	pages uint32 // overflow pages only: lower and upper read as one uint32
}

func decodePageHeader(b []byte) pageHeader {
	_ = b[pageHeaderSize-1]
	return pageHeader{
		pgno:  binary.LittleEndian.Uint64(b[0:]),
		flags: binary.LittleEndian.Uint16(b[10:]),
		lower: binary.LittleEndian.Uint16(b[12:]),
		upper: binary.LittleEndian.Uint16(b[14:]),
		pages: binary.LittleEndian.Uint32(b[12:]),
	}
}

// dbRecord is a decoded MDB_db.
type dbRecord struct {
	pad           uint32 // FREE_DBI: the page size
	flags         uint16
	depth         uint16
	branchPages   uint64
	leafPages     uint64
	overflowPages uint64
	entries       uint64
	root          uint64
}

func decodeDB(b []byte) dbRecord {
	_ = b[dbSize-1]
	return dbRecord{
		pad:           binary.LittleEndian.Uint32(b[0:]),
		flags:         binary.LittleEndian.Uint16(b[4:]),
		depth:         binary.LittleEndian.Uint16(b[6:]),
		branchPages:   binary.LittleEndian.Uint64(b[8:]),
		leafPages:     binary.LittleEndian.Uint64(b[16:]),
		overflowPages: binary.LittleEndian.Uint64(b[24:]),
		entries:       binary.LittleEndian.Uint64(b[32:]),
		root:          binary.LittleEndian.Uint64(b[40:]),
	}
}

// rawMeta is a decoded MDB_meta.
type rawMeta struct {
	magic   uint32
	version uint32
	mapSize uint64
	free    dbRecord // FREE_DBI
	main    dbRecord // MAIN_DBI
	lastPg  uint64
	txnID   uint64
}

// decodeMeta decodes the meta record that follows a page header.
func decodeMeta(b []byte) rawMeta {
	_ = b[metaSize-1]
	return rawMeta{
		magic:   binary.LittleEndian.Uint32(b[0:]),
		version: binary.LittleEndian.Uint32(b[4:]),
		mapSize: binary.LittleEndian.Uint64(b[16:]),
		free:    decodeDB(b[24:]),
		main:    decodeDB(b[24+dbSize:]),
		lastPg:  binary.LittleEndian.Uint64(b[24+2*dbSize:]),
		txnID:   binary.LittleEndian.Uint64(b[32+2*dbSize:]),
	}
}

// magicAt reports the uint32 at off, for recognising LMDB files of other builds.
func magicAt(b []byte, off int) uint32 {
	return binary.LittleEndian.Uint32(b[off:])
}

// nodeHeader is a decoded MDB_node header.
type nodeHeader struct {
	lo, hi, flags, ksize uint16
}

func decodeNode(b []byte) nodeHeader {
	_ = b[nodeHeaderSize-1]
	return nodeHeader{
		lo:    binary.LittleEndian.Uint16(b[0:]),
		hi:    binary.LittleEndian.Uint16(b[2:]),
		flags: binary.LittleEndian.Uint16(b[4:]),
		ksize: binary.LittleEndian.Uint16(b[6:]),
	}
}

// dataSize is a leaf node's value size (NODEDSZ).
func (n nodeHeader) dataSize() uint32 { return uint32(n.lo) | uint32(n.hi)<<16 }

// childPgno is a branch node's child page number (NODEPGNO, 64-bit).
func (n nodeHeader) childPgno() uint64 {
	return uint64(n.lo) | uint64(n.hi)<<16 | uint64(n.flags)<<32
}

// nodePtr returns the offset of node i in a page (mp_ptrs[i]).
func nodePtr(page []byte, i int) int {
	return int(binary.LittleEndian.Uint16(page[pageHeaderSize+2*i:]))
}

// overflowPgno reads the first overflow page number stored as a node's data.
func overflowPgno(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// overflowPages is the number of pages an overflow value of size bytes spans
// (OVPAGES).
func overflowPages(size, psize uint64) uint64 {
	return (pageHeaderSize-1+size)/psize + 1
}
