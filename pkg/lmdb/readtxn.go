//go:build cgo

package lmdb

// #include <lmdb.h>
import "C"

// BeginRead starts a read-only transaction that outlives a function call
// (mdb_txn_begin with MDB_RDONLY), for a reader that keeps one snapshot open
// while it walks a cursor step by step. The caller must call Abort. Because
// environments are opened with MDB_NOTLS, the transaction may be used from
// any goroutine, but by one at a time.
func (e *Env) BeginRead() (*Txn, error) {
	return e.begin(C.MDB_RDONLY)
}

// Abort ends a transaction from BeginRead (mdb_txn_abort), closing its
// cursors; views it returned become invalid. Calling it again is a no-op.
func (t *Txn) Abort() { t.abort() }
