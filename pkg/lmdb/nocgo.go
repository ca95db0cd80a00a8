//go:build !cgo

package lmdb

// Without cgo there is no liblmdb: Open fails with ErrNoCgo, so no Env,
// Txn or Cursor ever exists and the methods below are never reached. They
// keep the API identical so that programs importing the package still
// build with CGO_ENABLED=0.

// Env is an LMDB environment; see the cgo build.
type Env struct{}

// Txn is a transaction; see the cgo build.
type Txn struct{}

// Cursor is a cursor; see the cgo build.
type Cursor struct{}

// Open returns ErrNoCgo: liblmdb needs cgo.
func Open(path string, flags Flags, mapSize int64) (*Env, error) { return nil, ErrNoCgo }

// Path returns "".
func (e *Env) Path() string { return "" }

// Close does nothing.
func (e *Env) Close() error { return nil }

// SetMapSize returns ErrNoCgo.
func (e *Env) SetMapSize(size int64) error { return ErrNoCgo }

// Sync returns ErrNoCgo.
func (e *Env) Sync(force bool) error { return ErrNoCgo }

// Stat returns ErrNoCgo.
func (e *Env) Stat() (Stat, error) { return Stat{}, ErrNoCgo }

// Info returns ErrNoCgo.
func (e *Env) Info() (Info, error) { return Info{}, ErrNoCgo }

// Update returns ErrNoCgo.
func (e *Env) Update(fn func(*Txn) error) error { return ErrNoCgo }

// View returns ErrNoCgo.
func (e *Env) View(fn func(*Txn) error) error { return ErrNoCgo }

// FileOffset returns -1.
func (e *Env) FileOffset(b []byte) int64 { return -1 }

// Put returns ErrNoCgo.
func (t *Txn) Put(key, val []byte) error { return ErrNoCgo }

// Get returns ErrNoCgo.
func (t *Txn) Get(key []byte) ([]byte, error) { return nil, ErrNoCgo }

// Del returns ErrNoCgo.
func (t *Txn) Del(key []byte) error { return ErrNoCgo }

// Cursor returns ErrNoCgo.
func (t *Txn) Cursor() (*Cursor, error) { return nil, ErrNoCgo }

// First returns ErrNoCgo.
func (c *Cursor) First() (k, v []byte, err error) { return nil, nil, ErrNoCgo }

// Next returns ErrNoCgo.
func (c *Cursor) Next() (k, v []byte, err error) { return nil, nil, ErrNoCgo }

// Last returns ErrNoCgo.
func (c *Cursor) Last() (k, v []byte, err error) { return nil, nil, ErrNoCgo }

// Seek returns ErrNoCgo.
func (c *Cursor) Seek(key []byte) (k, v []byte, err error) { return nil, nil, ErrNoCgo }

// Close does nothing.
func (c *Cursor) Close() {}

// BeginRead returns ErrNoCgo: liblmdb needs cgo.
func (e *Env) BeginRead() (*Txn, error) { return nil, ErrNoCgo }

// Abort does nothing without cgo.
func (t *Txn) Abort() {}
