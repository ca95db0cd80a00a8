//go:build !cgo

package lmdbwalk

import "errors"

// Without cgo there is no liblmdb: Open fails, so no Walker exists and the
// methods below are never reached. They keep the API, so that programs
// importing the package build with CGO_ENABLED=0.

// Walker is a read transaction and a cursor; see the cgo build.
type Walker struct{}

var errNoCgo = errors.New("lmdbwalk: built without cgo; liblmdb is not available")

// Open returns an error: liblmdb needs cgo.
func Open(string) (*Walker, error) { return nil, errNoCgo }

func (*Walker) Seek(int) (k, v []byte, err error) { return nil, nil, errNoCgo }
func (*Walker) FileOffset([]byte) int64           { return -1 }
func (*Walker) Check() error                      { return nil }
func (*Walker) Close() error                      { return nil }

// IsCorrupt reports false: without liblmdb there are no liblmdb errors.
func IsCorrupt(error) bool { return false }
