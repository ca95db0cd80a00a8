//go:build cgo

package lmdb

/*
#cgo pkg-config: lmdb
#include <lmdb.h>

// These functions build MDB_val on the C stack, so Go passes only plain byte
// pointers: cgo forbids handing C a Go struct that holds Go pointers.

static int lmdbio_put(MDB_txn *txn, MDB_dbi dbi, char *k, size_t kn, char *v, size_t vn, unsigned int flags) {
	MDB_val key = {kn, k}, val = {vn, v};
	return mdb_put(txn, dbi, &key, &val, flags);
}

static int lmdbio_get(MDB_txn *txn, MDB_dbi dbi, char *k, size_t kn, MDB_val *val) {
	MDB_val key = {kn, k};
	return mdb_get(txn, dbi, &key, val);
}

static int lmdbio_del(MDB_txn *txn, MDB_dbi dbi, char *k, size_t kn) {
	MDB_val key = {kn, k};
	return mdb_del(txn, dbi, &key, NULL);
}
*/
import "C"

import "unsafe"

// Txn is a transaction (MDB_txn) on the main database. It is valid only
// inside the function given to Env.Update or Env.View, and only on that
// goroutine.
type Txn struct {
	txn     *C.MDB_txn
	dbi     C.MDB_dbi
	cursors []*Cursor // opened here; closed before the transaction ends
	val     C.MDB_val // Get's result, kept here to avoid an allocation per call
}

// begin starts a transaction (mdb_txn_begin) and opens the main database
// in it (mdb_dbi_open with a NULL name, which only returns its handle).
func (e *Env) begin(flags C.uint) (*Txn, error) {
	t := &Txn{}
	if rc := C.mdb_txn_begin(e.live(), nil, flags, &t.txn); rc != 0 {
		return nil, newError("mdb_txn_begin", rc)
	}
	if rc := C.mdb_dbi_open(t.txn, nil, 0, &t.dbi); rc != 0 {
		t.abort()
		return nil, newError("mdb_dbi_open", rc)
	}
	return t, nil
}

// commit commits the transaction (mdb_txn_commit), which frees it whether
// or not the commit succeeds.
func (t *Txn) commit() error {
	t.closeCursors()
	rc := C.mdb_txn_commit(t.txn)
	t.txn = nil
	return newError("mdb_txn_commit", rc)
}

// abort abandons the transaction (mdb_txn_abort); a no-op once it ended.
func (t *Txn) abort() {
	if t.txn == nil {
		return
	}
	t.closeCursors()
	C.mdb_txn_abort(t.txn)
	t.txn = nil
}

// closeCursors closes the cursors the caller left open. liblmdb requires
// that for read-only transactions; for write transactions it would free
// them itself, and a later Close would then free them twice.
func (t *Txn) closeCursors() {
	for _, c := range t.cursors {
		c.Close()
	}
	t.cursors = nil
}

// Put stores val under key (mdb_put without flags), replacing any value
// already there. liblmdb copies both before Put returns. After ErrMapFull
// the transaction can only be aborted: return the error from the Update
// function.
func (t *Txn) Put(key, val []byte) error {
	rc := C.lmdbio_put(t.live(), t.dbi, bytesPtr(key), C.size_t(len(key)),
		bytesPtr(val), C.size_t(len(val)), 0)
	return newError("mdb_put", rc)
}

// Get returns the value stored under key (mdb_get), or ErrNotFound. The
// value is a zero-copy view into the map, valid until the transaction ends;
// it must not be modified.
func (t *Txn) Get(key []byte) ([]byte, error) {
	rc := C.lmdbio_get(t.live(), t.dbi, bytesPtr(key), C.size_t(len(key)), &t.val)
	if rc != 0 {
		return nil, newError("mdb_get", rc)
	}
	return view(t.val), nil
}

// Del removes key and its value (mdb_del), or returns ErrNotFound.
func (t *Txn) Del(key []byte) error {
	return newError("mdb_del", C.lmdbio_del(t.live(), t.dbi, bytesPtr(key), C.size_t(len(key))))
}

// live returns the C transaction, panicking if it has ended: using a Txn
// after its Update or View function returned is a programming mistake.
func (t *Txn) live() *C.MDB_txn {
	if t.txn == nil {
		panic("lmdb: use of a transaction after it ended")
	}
	return t.txn
}

// bytesPtr returns a C pointer to b's bytes, nil for an empty slice (which
// may have no backing array at all).
func bytesPtr(b []byte) *C.char {
	if len(b) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(&b[0]))
}

// view returns the bytes v describes in the map, without copying.
func view(v C.MDB_val) []byte {
	if v.mv_data == nil {
		return nil
	}
	return unsafe.Slice((*byte)(v.mv_data), int(v.mv_size))
}
