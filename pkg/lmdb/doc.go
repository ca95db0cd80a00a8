// Package lmdb is a thin cgo binding to liblmdb, the C library behind LMDB
// datasets. lmdbio uses it to write datasets, as the baseline the fast reader
// is measured against, and in tests as an independent check of pkg/lmdbfmt.
//
// # Overview
//
// Open returns an Env, one memory-mapped database file. Work happens in
// transactions: Update runs a read-write transaction that commits when its
// function returns nil, View a read-only one. Only the unnamed main database
// is used, as Caffe does.
//
// Each C object has one file: env.go (MDB_env), txn.go (MDB_txn), cursor.go
// (MDB_cursor). Every doc comment names the C call it wraps.
//
// # Invariants
//
//   - Keys and values returned by Get and Cursor are zero-copy views into the
//     memory map. They are valid only until the transaction ends and must not
//     be written to; copy them to keep them.
//   - A Txn and its Cursors are used by one goroutine at a time and not after
//     the transaction ends: when the Update or View function returns, or,
//     for a read transaction from BeginRead, at Abort. Ending a transaction
//     closes the cursors still open in it.
//   - A write transaction runs on one locked OS thread, because liblmdb's
//     writer lock is owned by a thread. Every environment is opened with
//     MDB_NOTLS so read transactions may move between threads with their
//     goroutine.
//   - Errors from liblmdb are *Error values; ErrNotFound and ErrMapFull match
//     them with errors.Is, and positive codes unwrap to syscall.Errno (so
//     errors.Is(err, fs.ErrNotExist) works).
//
// Without cgo the package still compiles, but Open returns ErrNoCgo.
package lmdb
