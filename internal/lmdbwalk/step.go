//go:build cgo

package lmdbwalk

/*
#include <setjmp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

// The declarations of lmdb.h this file needs. liblmdb itself is the copy
// lmdb-go compiles into the program (github.com/PowerDNS/lmdb-go); its
// header is not on this package's include path.
typedef struct MDB_env MDB_env;
typedef struct MDB_txn MDB_txn;
typedef struct MDB_cursor MDB_cursor;
typedef struct MDB_val { size_t mv_size; void *mv_data; } MDB_val;
typedef void MDB_assert_func(MDB_env *env, const char *msg);
int mdb_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, int op);
MDB_txn *mdb_cursor_txn(MDB_cursor *cursor);
MDB_env *mdb_txn_env(MDB_txn *txn);
int mdb_env_set_assert(MDB_env *env, MDB_assert_func *func);

// LMDBWALK_ASSERTED is what lmdbwalk_step returns when liblmdb's own check
// of a page failed (an mdb_assert), with liblmdb's message in msg.
#define LMDBWALK_ASSERTED (-1)

// Where an assertion inside lmdbwalk_step on this thread jumps to, and
// where its message goes.
static __thread jmp_buf *lmdbwalk_escape;
static __thread char *lmdbwalk_msg;
static __thread size_t lmdbwalk_msg_len;

// lmdbwalk_asserted is liblmdb's assertion callback. liblmdb would print
// its message and abort() the process once it returns; inside a step it
// returns to lmdbwalk_step instead. The cursor is then left where the
// walk cannot use it: the Walker starts over from the first record.
static void lmdbwalk_asserted(MDB_env *env, const char *msg) {
	(void)env;
	if (lmdbwalk_escape == NULL) {
		return;
	}
	strncpy(lmdbwalk_msg, msg, lmdbwalk_msg_len - 1);
	lmdbwalk_msg[lmdbwalk_msg_len - 1] = 0;
	longjmp(*lmdbwalk_escape, 1);
}

// lmdbwalk_catch_asserts sets lmdbwalk_asserted as the callback of the
// environment of cur.
static int lmdbwalk_catch_asserts(MDB_cursor *cur) {
	return mdb_env_set_assert(mdb_txn_env(mdb_cursor_txn(cur)), lmdbwalk_asserted);
}

// lmdbwalk_step moves the cursor n records with op (MDB_FIRST counts as
// one), then sets key and data to the record it stops on. Only liblmdb's
// branch and leaf pages are read on the way: data is where the value lies,
// not yet read. A page that fails liblmdb's checks (a writer reused it
// under a reader without the lock file, or the file is damaged) returns
// LMDBWALK_ASSERTED with liblmdb's message in msg.
static int lmdbwalk_step(MDB_cursor *cur, int op, int next, long n, MDB_val *key, MDB_val *data, char *msg, size_t msg_len) {
	jmp_buf escape;
	if (setjmp(escape) != 0) {
		lmdbwalk_escape = NULL;
		return LMDBWALK_ASSERTED;
	}
	lmdbwalk_escape = &escape;
	lmdbwalk_msg = msg;
	lmdbwalk_msg_len = msg_len;
	int rc = 0;
	for (long i = 0; i < n && rc == 0; i++) {
		rc = mdb_cursor_get(cur, key, data, i == 0 ? op : next);
	}
	lmdbwalk_escape = NULL;
	return rc;
}
*/
import "C"

import (
	"fmt"
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
// nearly the whole file on every host of a parallel file system
// (docs/decisions/0002-cursor-walk-steps-without-touching-values.md).
//
// liblmdb checks the pages it walks and aborts the process when one fails
// (a writer without the lock file reused it, or the file is damaged);
// step turns that into an error wrapping lmdb.Corrupted.
func (w *Walker) step(op uint, n int) (k, v []byte, err error) {
	var key, data C.MDB_val
	msg := (*C.char)(w.assertMsg)
	rc := C.lmdbwalk_step((*C.MDB_cursor)(w.cursorC), C.int(op), C.int(lmdb.Next), C.long(n), &key, &data, msg, assertMsgLen)
	switch {
	case rc == C.LMDBWALK_ASSERTED:
		return nil, nil, fmt.Errorf("liblmdb: %s: %w", C.GoString(msg), lmdb.Corrupted)
	case rc != 0:
		return nil, nil, &lmdb.OpError{Op: "mdb_cursor_get", Errno: errno(int(rc))}
	}
	return view(key), view(data), nil
}

// assertMsgLen bounds liblmdb's assertion message (it formats at most 400
// bytes).
const assertMsgLen = 512

// catchAsserts makes liblmdb's failed checks during a step errors (see
// step) instead of the end of the process, with room in C memory for
// liblmdb's message.
func (w *Walker) catchAsserts() error {
	if rc := C.lmdbwalk_catch_asserts((*C.MDB_cursor)(w.cursorC)); rc != 0 {
		return errno(int(rc))
	}
	w.assertMsg = C.calloc(1, assertMsgLen)
	return nil
}

// freeAssertMsg frees what catchAsserts allocated, if it did (free of
// NULL does nothing).
func (w *Walker) freeAssertMsg() {
	C.free(w.assertMsg)
	w.assertMsg = nil
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
