//go:build !cgo

package gen

import "errors"

// Write returns an error: writing LMDB needs liblmdb, which needs cgo.
func Write(dir string, opt Options) (Summary, error) {
	return Summary{}, errors.New("gen: built without cgo; writing LMDB needs liblmdb")
}
