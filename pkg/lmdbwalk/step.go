//go:build cgo

package lmdbwalk

/*
#include <stddef.h>

// The two declarations of lmdb.h this file needs. liblmdb itself is the
// copy lmdb-go compiles into the program (github.com/PowerDNS/lmdb-go);
// its header is not on this package's include path.
typedef struct MDB_cursor MDB_cursor;
typedef struct MDB_val { size_t mv_size; void *mv_data; } MDB_val;
int mdb_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, int op);

// lmdbwalk_step moves the cursor n records with op (MDB_FIRST counts as
// one), then sets key and data to the record it stops on. Only liblmdb's
// branch and leaf pages are read on the way: data is where the value lies,
// not yet read.
static int lmdbwalk_step(MDB_cursor *cur, int op, int next, long n, MDB_val *key, MDB_val *data) {
	int rc = 0;
	for (long i = 0; i < n && rc == 0; i++) {
		rc = mdb_cursor_get(cur, key, data, i == 0 ? op : next);
	}
	return rc;
}
*/
import "C"

import (
	"reflect"
	"syscall"
	"unsafe"

	"github.com/PowerDNS/lmdb-go/lmdb"
)

// step moves the cursor n ≥ 1 records with op (lmdb.First or lmdb.Next;
// the rest with lmdb.Next) and returns the key and value it stops on as
// views into the map.
//
// It exists because lmdb-go's Cursor.Get reads the first byte of every
// value it returns: slicing the value's pointer makes Go check it for nil
// with a load from it. A walk that steps over other ranks' records, as
// Caffe-MPI's readers do, would then fault in the first page of every
// value it skips, and through the readahead around each fault read
// nearly the whole file on every host of a parallel file system (measured
// through one emulated client: 2.29 GB for a walk that read no value,
// against 0.30 GB with liblmdb's own cursor, as Caffe's C++ walks it).
func (w *Walker) step(op uint, n int) (k, v []byte, err error) {
	var key, data C.MDB_val
	rc := C.lmdbwalk_step((*C.MDB_cursor)(w.cursorC), C.int(op), C.int(lmdb.Next), C.long(n), &key, &data)
	if rc != 0 {
		return nil, nil, &lmdb.OpError{Op: "mdb_cursor_get", Errno: errno(int(rc))}
	}
	return view(key), view(data), nil
}

// view is the bytes an MDB_val points to, without reading them.
func view(v C.MDB_val) []byte {
	if v.mv_data == nil {
		return nil
	}
	return unsafe.Slice((*byte)(v.mv_data), int(v.mv_size))
}

// errno turns a liblmdb return code into the error lmdb-go would give
// for it: its own codes are lmdb.Errno, the others the system's.
func errno(rc int) error {
	if rc >= int(lmdb.KeyExist) && rc <= int(lmdb.BadDBI) {
		return lmdb.Errno(rc)
	}
	return syscall.Errno(rc)
}

// cursorOf returns lmdb-go's C cursor, which it does not export: the walk
// drives it directly (see step). The layout is checked once: a lmdb-go
// whose Cursor no longer holds its C cursor as _c fails Open.
func cursorOf(c *lmdb.Cursor) (unsafe.Pointer, bool) {
	f := reflect.ValueOf(c).Elem().FieldByName("_c")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return nil, false
	}
	return f.UnsafePointer(), true
}
