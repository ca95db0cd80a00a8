//go:build cgo

package lmdbwalk

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/PowerDNS/lmdb-go/lmdb"
	"github.com/lmdbio/lmdbio/internal/lmdbpin"
	"github.com/lmdbio/lmdbio/pkg/failure"
)

// Walker is a read transaction on an LMDB data file and a cursor in it.
type Walker struct {
	env *lmdb.Env
	txn *lmdb.Txn
	cur *lmdb.Cursor
	// cursorC is cur's C cursor, which the walk drives itself (see step).
	cursorC unsafe.Pointer
	// assertMsg is C memory for liblmdb's message when a page fails its
	// checks (see catchAsserts).
	assertMsg unsafe.Pointer
	pin       *lmdbpin.Pin
	pos       int // record under the cursor; -1 before the first

	mapBase uintptr // address of file offset 0 in the map; 0 until FileOffset finds it
	mapSize int64
}

// Open opens the LMDB data file at dataPath (a data.mdb or a single-file
// database) and begins a read transaction on its main database.
func Open(dataPath string) (*Walker, error) {
	env, err := lmdb.NewEnv()
	if err != nil {
		return nil, wrap("open "+dataPath, err)
	}
	w := &Walker{env: env, pos: -1}
	if err := env.Open(dataPath, lmdb.Readonly|lmdb.NoLock|lmdb.NoSubdir, 0); err != nil {
		w.Close()
		return nil, wrap("open "+dataPath, err)
	}
	if w.txn, err = env.BeginTxn(nil, lmdb.Readonly); err != nil {
		w.Close()
		return nil, wrap("open "+dataPath, err)
	}
	w.txn.RawRead = true
	dbi, err := w.txn.OpenRoot(0)
	if err == nil {
		w.cur, err = w.txn.OpenCursor(dbi)
	}
	if err != nil {
		w.Close()
		return nil, wrap("open "+dataPath, err)
	}
	var ok bool
	if w.cursorC, ok = cursorOf(w.cur); !ok {
		w.Close()
		return nil, errors.New("lmdbwalk: this lmdb-go's Cursor does not hold its C cursor where lmdbwalk looks for it")
	}
	if err := w.catchAsserts(); err != nil {
		w.Close()
		return nil, wrap("open "+dataPath, err)
	}
	if w.pin, err = lmdbpin.Open(dataPath, uint64(w.txn.ID())); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Check returns an error wrapping lmdbpin.ErrChanged if the snapshot is not
// held and the database has committed since it was taken: the keys and
// values read before may have changed under their views. Call it after
// using them.
func (w *Walker) Check() error { return w.pin.Check() }

// Seek walks the cursor to record i (numbered in key order from 0) one
// record at a time, from where it is, or from the first record when i is
// not ahead. It returns the record's key and value as views into the map;
// the records stepped over are not read, only the leaf pages that list
// them, as a C caller of liblmdb walks them.
func (w *Walker) Seek(i int) (k, v []byte, err error) {
	op, n := uint(lmdb.Next), i-w.pos
	if i <= w.pos || w.pos < 0 {
		op, n = lmdb.First, i+1
	}
	if k, v, err = w.step(op, n); err != nil {
		w.pos = -1
		if changed := w.Check(); changed != nil {
			return nil, nil, changed // a writer reused the pages under the cursor
		}
		return nil, nil, wrap(fmt.Sprintf("cursor walk to record %d", i), err)
	}
	w.pos = i
	return k, v, nil
}

// Close ends the transaction and closes the environment; views from Seek
// become invalid. Closing twice is harmless.
func (w *Walker) Close() error {
	w.freeAssertMsg()
	if w.pin != nil {
		w.pin.Close()
		w.pin = nil
	}
	if w.cur != nil {
		w.cur.Close()
		w.cur = nil
	}
	if w.txn != nil {
		w.txn.Abort()
		w.txn = nil
	}
	if w.env != nil {
		err := w.env.Close()
		w.env = nil
		return err
	}
	return nil
}

// IsCorrupt reports whether err is liblmdb finding the database damaged or
// not an LMDB file (MDB_CORRUPTED, MDB_PAGE_NOTFOUND, MDB_INVALID).
func IsCorrupt(err error) bool {
	return errors.Is(err, lmdb.Corrupted) || errors.Is(err, lmdb.PageNotFound) || errors.Is(err, lmdb.Invalid)
}

// opError is an lmdb-go error that unwraps to its code, so that callers can
// test errors.Is(err, fs.ErrNotExist) or errors.Is(err, lmdb.Corrupted).
type opError struct{ *lmdb.OpError }

func (e opError) Unwrap() error { return e.Errno }

// wrap prefixes err with what was being done and makes lmdb-go's codes
// reachable with errors.Is; liblmdb's finding of a damaged file or of one
// that is no LMDB (IsCorrupt) is the input's failure.
func wrap(doing string, err error) error {
	var op *lmdb.OpError
	if errors.As(err, &op) {
		err = opError{op}
	}
	err = fmt.Errorf("lmdb: %s: %w", doing, err)
	if IsCorrupt(err) {
		return failure.Mark(err, failure.Input)
	}
	return err
}
