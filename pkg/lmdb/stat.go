package lmdb

// Stat describes the B-tree of the main database (MDB_stat).
type Stat struct {
	PageSize      int   // ms_psize, bytes
	Depth         int   // ms_depth, levels of the tree
	BranchPages   int64 // ms_branch_pages
	LeafPages     int64 // ms_leaf_pages
	OverflowPages int64 // ms_overflow_pages, pages holding large values
	Entries       int64 // ms_entries, records
}

// Info describes the environment (MDB_envinfo).
type Info struct {
	// MapAddr is me_mapaddr: the fixed map address recorded in the file. It
	// is 0 unless the file was created with MDB_FIXEDMAP, so it is not the
	// address of the map; FileOffset finds that itself.
	MapAddr    uintptr
	MapSize    int64 // me_mapsize, bytes
	LastPgno   int64 // me_last_pgno, highest page number in use
	LastTxnID  int64 // me_last_txnid, last committed transaction
	MaxReaders int   // me_maxreaders, reader slots
	NumReaders int   // me_numreaders, reader slots used
}
