//go:build cgo

package lmdb

/*
#cgo pkg-config: lmdb
#include <lmdb.h>
*/
import "C"

// The pure-Go constants in flags.go and error.go must equal lmdb.h's. Each
// pair of conversions below fails to compile unless both sides are equal,
// because a negative constant cannot be converted to an unsigned type.
const (
	_ = uint(codeNotFound - C.MDB_NOTFOUND)
	_ = uint(C.MDB_NOTFOUND - codeNotFound)
	_ = uint(codeMapFull - C.MDB_MAP_FULL)
	_ = uint(C.MDB_MAP_FULL - codeMapFull)
	_ = uint(codePageNotFound - C.MDB_PAGE_NOTFOUND)
	_ = uint(C.MDB_PAGE_NOTFOUND - codePageNotFound)
	_ = uint(codeCorrupted - C.MDB_CORRUPTED)
	_ = uint(C.MDB_CORRUPTED - codeCorrupted)
	_ = uint(codeInvalid - C.MDB_INVALID)
	_ = uint(C.MDB_INVALID - codeInvalid)

	_ = NoSubdir - C.MDB_NOSUBDIR + (C.MDB_NOSUBDIR - NoSubdir)
	_ = NoSync - C.MDB_NOSYNC + (C.MDB_NOSYNC - NoSync)
	_ = ReadOnly - C.MDB_RDONLY + (C.MDB_RDONLY - ReadOnly)
	_ = NoMetaSync - C.MDB_NOMETASYNC + (C.MDB_NOMETASYNC - NoMetaSync)
	_ = WriteMap - C.MDB_WRITEMAP + (C.MDB_WRITEMAP - WriteMap)
	_ = NoLock - C.MDB_NOLOCK + (C.MDB_NOLOCK - NoLock)
	_ = NoReadahead - C.MDB_NORDAHEAD + (C.MDB_NORDAHEAD - NoReadahead)
	_ = noTLS - C.MDB_NOTLS + (C.MDB_NOTLS - noTLS)
)

// newError turns the return code of the C function op into an error, nil
// for success. The message comes from mdb_strerror, which also covers errno
// values.
func newError(op string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	return &Error{Op: op, Code: int(rc), Msg: C.GoString(C.mdb_strerror(rc))}
}
