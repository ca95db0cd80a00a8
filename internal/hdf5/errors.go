package hdf5

import (
	"errors"
	"fmt"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

var (
	// ErrBadInput marks files and datasets lmdbio cannot read: not HDF5,
	// damaged, no such dataset, a shape, element type or filter it cannot
	// deliver.
	ErrBadInput = failure.New(failure.Input, "bad HDF5 input")
	// ErrLayout means an encoded Source is not valid.
	ErrLayout = errors.New("invalid HDF5 layout")
)

// badInput is an error that says what is wrong and wraps ErrBadInput
// without repeating its words.
type badInput struct{ err error }

func (e badInput) Error() string { return e.err.Error() }
func (e badInput) Unwrap() []error {
	return []error{e.err, ErrBadInput}
}

func badf(format string, args ...any) error { return badInput{fmt.Errorf(format, args...)} }
