//go:build cgo

package lmdb

/*
#cgo pkg-config: lmdb
#include <lmdb.h>

// lmdbio_seek positions c at the first key >= k (MDB_SET_RANGE). The
// search key lives on the C stack, so the Go pointer k is never stored in
// Go memory by C; only the found key, a map address, is copied out.
static int lmdbio_seek(MDB_cursor *c, char *k, size_t kn, MDB_val *key, MDB_val *val) {
	MDB_val in = {kn, k};
	int rc = mdb_cursor_get(c, &in, val, MDB_SET_RANGE);
	if (rc == 0)
		*key = in;
	return rc;
}
*/
import "C"

// Cursor walks the main database in key order (MDB_cursor). It belongs to
// the transaction that opened it and is closed with it at the latest.
type Cursor struct {
	cur      *C.MDB_cursor
	key, val C.MDB_val // results, kept here to avoid an allocation per step
}

// Cursor opens a cursor on the main database (mdb_cursor_open).
func (t *Txn) Cursor() (*Cursor, error) {
	c := &Cursor{}
	if rc := C.mdb_cursor_open(t.live(), t.dbi, &c.cur); rc != 0 {
		return nil, newError("mdb_cursor_open", rc)
	}
	t.cursors = append(t.cursors, c)
	return c, nil
}

// First moves to the first record (mdb_cursor_get with MDB_FIRST) and
// returns it, or ErrNotFound if the database is empty. Key and value are
// zero-copy views into the map, valid until the transaction ends.
func (c *Cursor) First() (k, v []byte, err error) { return c.get(C.MDB_FIRST) }

// Next moves to the next record (mdb_cursor_get with MDB_NEXT) and returns
// it, or ErrNotFound after the last one. Views as for First.
func (c *Cursor) Next() (k, v []byte, err error) { return c.get(C.MDB_NEXT) }

// Last moves to the last record (mdb_cursor_get with MDB_LAST). Views as
// for First.
func (c *Cursor) Last() (k, v []byte, err error) { return c.get(C.MDB_LAST) }

// Seek moves to the first record whose key is >= key (mdb_cursor_get with
// MDB_SET_RANGE), or returns ErrNotFound if there is none. An empty key,
// which liblmdb rejects, seeks to the first record. Views as for First; key
// itself is not retained.
func (c *Cursor) Seek(key []byte) (k, v []byte, err error) {
	if len(key) == 0 {
		return c.First()
	}
	rc := C.lmdbio_seek(c.live(), bytesPtr(key), C.size_t(len(key)), &c.key, &c.val)
	return c.result(rc)
}

// Close closes the cursor (mdb_cursor_close). Closing twice, or after the
// transaction ended, is harmless.
func (c *Cursor) Close() {
	if c.cur != nil {
		C.mdb_cursor_close(c.cur)
		c.cur = nil
	}
}

// get runs mdb_cursor_get with op.
func (c *Cursor) get(op C.MDB_cursor_op) (k, v []byte, err error) {
	return c.result(C.mdb_cursor_get(c.live(), &c.key, &c.val, op))
}

// result turns the outcome of an mdb_cursor_get into views.
func (c *Cursor) result(rc C.int) (k, v []byte, err error) {
	if rc != 0 {
		return nil, nil, newError("mdb_cursor_get", rc)
	}
	return view(c.key), view(c.val), nil
}

// live returns the C cursor, panicking if it was closed.
func (c *Cursor) live() *C.MDB_cursor {
	if c.cur == nil {
		panic("lmdb: use of a closed Cursor")
	}
	return c.cur
}
