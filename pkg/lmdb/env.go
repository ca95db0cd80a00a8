//go:build cgo

package lmdb

/*
#cgo pkg-config: lmdb
#include <stdlib.h>
#include <lmdb.h>
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// Env is an open LMDB environment (MDB_env). Its methods are safe for
// concurrent use, except Close and SetMapSize, which need every transaction
// to have ended.
type Env struct {
	env  *C.MDB_env
	path string

	mu      sync.Mutex // guards the fields below, which FileOffset fills lazily
	mapBase uintptr    // address of file offset 0 in the map; 0 until known
	mapSize int64
}

// Open opens the environment at path: mdb_env_create, mdb_env_set_mapsize
// (when mapSize > 0; otherwise liblmdb's default, or the size recorded in an
// existing file if larger) and mdb_env_open with mode 0644. MDB_NOTLS is
// always added to flags. Without NoSubdir, path is a directory holding
// data.mdb and lock.mdb. Errors name the path.
func Open(path string, flags Flags, mapSize int64) (*Env, error) {
	e := &Env{path: path}
	if rc := C.mdb_env_create(&e.env); rc != 0 {
		return nil, fmt.Errorf("lmdb: open %s: %w", path, newError("mdb_env_create", rc))
	}
	if mapSize > 0 {
		if err := e.SetMapSize(mapSize); err != nil {
			e.Close()
			return nil, fmt.Errorf("lmdb: open %s: %w", path, err)
		}
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if rc := C.mdb_env_open(e.env, cpath, C.uint(flags|noTLS), 0o644); rc != 0 {
		e.Close()
		return nil, fmt.Errorf("lmdb: open %s: %w", path, newError("mdb_env_open", rc))
	}
	return e, nil
}

// Path returns the path the environment was opened with.
func (e *Env) Path() string { return e.path }

// Close closes the environment (mdb_env_close). Every transaction must have
// ended. Closing twice is harmless.
func (e *Env) Close() error {
	if e.env != nil {
		C.mdb_env_close(e.env)
		e.env = nil
	}
	return nil
}

// SetMapSize sets the size of the memory map in bytes (mdb_env_set_mapsize).
// After Open it may only be called while no transaction is active; use it to
// grow the map after ErrMapFull.
func (e *Env) SetMapSize(size int64) error {
	if rc := C.mdb_env_set_mapsize(e.live(), C.size_t(size)); rc != 0 {
		return newError("mdb_env_set_mapsize", rc)
	}
	e.mu.Lock()
	e.mapBase, e.mapSize = 0, 0 // the map may have moved
	e.mu.Unlock()
	return nil
}

// Sync flushes written data to disk (mdb_env_sync). With force false it
// does nothing in an environment opened with NoSync, so after a NoSync bulk
// load call Sync(true).
func (e *Env) Sync(force bool) error {
	f := C.int(0)
	if force {
		f = 1
	}
	return newError("mdb_env_sync", C.mdb_env_sync(e.live(), f))
}

// Stat returns statistics of the main database (mdb_env_stat).
func (e *Env) Stat() (Stat, error) {
	var s C.MDB_stat
	if rc := C.mdb_env_stat(e.live(), &s); rc != 0 {
		return Stat{}, newError("mdb_env_stat", rc)
	}
	return Stat{
		PageSize:      int(s.ms_psize),
		Depth:         int(s.ms_depth),
		BranchPages:   int64(s.ms_branch_pages),
		LeafPages:     int64(s.ms_leaf_pages),
		OverflowPages: int64(s.ms_overflow_pages),
		Entries:       int64(s.ms_entries),
	}, nil
}

// Info returns information about the environment (mdb_env_info).
func (e *Env) Info() (Info, error) {
	var in C.MDB_envinfo
	if rc := C.mdb_env_info(e.live(), &in); rc != 0 {
		return Info{}, newError("mdb_env_info", rc)
	}
	return Info{
		MapAddr:    uintptr(in.me_mapaddr),
		MapSize:    int64(in.me_mapsize),
		LastPgno:   int64(in.me_last_pgno),
		LastTxnID:  int64(in.me_last_txnid),
		MaxReaders: int(in.me_maxreaders),
		NumReaders: int(in.me_numreaders),
	}, nil
}

// fd returns the descriptor of the data file (mdb_env_get_fd).
func (e *Env) fd() (int, error) {
	var fd C.mdb_filehandle_t
	if rc := C.mdb_env_get_fd(e.live(), &fd); rc != 0 {
		return -1, newError("mdb_env_get_fd", rc)
	}
	return int(fd), nil
}

// Update runs fn in a read-write transaction: mdb_txn_begin, then
// mdb_txn_commit if fn returns nil, mdb_txn_abort otherwise (fn's error is
// returned unchanged). The goroutine stays locked to its OS thread
// meanwhile, because liblmdb's writer lock belongs to a thread. Updates of
// one environment run one at a time (with NoLock, the caller must ensure
// that). Do not call View or Update from fn.
func (e *Env) Update(fn func(*Txn) error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return e.run(0, fn)
}

// View runs fn in a read-only transaction (mdb_txn_begin with MDB_RDONLY,
// then mdb_txn_abort) and returns fn's error. Views may run concurrently
// with each other and with an Update.
func (e *Env) View(fn func(*Txn) error) error {
	// Not required with MDB_NOTLS, but cheap, and it keeps the reader slot
	// and the thread together as liblmdb expects by default.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return e.run(C.MDB_RDONLY, fn)
}

// run begins a transaction with flags, runs fn and ends the transaction.
func (e *Env) run(flags C.uint, fn func(*Txn) error) error {
	t, err := e.begin(flags)
	if err != nil {
		return err
	}
	defer t.abort() // a no-op after commit; ends the transaction if fn panics
	if err := fn(t); err != nil {
		return err
	}
	if flags&C.MDB_RDONLY != 0 {
		return nil // the deferred abort releases the reader slot
	}
	return t.commit()
}

// live returns the C environment, panicking if it was closed: using a
// closed Env is a programming mistake.
func (e *Env) live() *C.MDB_env {
	if e.env == nil {
		panic("lmdb: use of closed Env")
	}
	return e.env
}
