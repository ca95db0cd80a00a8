//go:build !cgo

package gen

import (
	"fmt"

	"github.com/lmdbio/lmdbio/internal/h5lib"
)

// WriteHDF5 needs libhdf5, so cgo: without it, it returns h5lib.ErrNoCgo.
func WriteHDF5(path string, opt HDF5Options) (Summary, error) {
	if _, err := opt.check(); err != nil {
		return Summary{}, err
	}
	return Summary{}, fmt.Errorf("gen: %w", h5lib.ErrNoCgo)
}
