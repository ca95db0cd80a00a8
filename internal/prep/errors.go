package prep

import (
	"errors"
	"fmt"
)

var (
	// ErrSpec means a pipeline spec cannot be parsed or makes no sense.
	ErrSpec = errors.New("prep: bad pipeline spec")
	// ErrImage means a record is not an image the pipeline can prepare:
	// not an image, corrupt, truncated, an unsupported colour space, zero
	// sized, too large, or smaller than a crop.
	ErrImage = errors.New("prep: bad image")
)

// specError is an ErrSpec whose message is its own one line.
type specError struct{ msg string }

func (e *specError) Error() string        { return "prep: " + e.msg }
func (e *specError) Is(target error) bool { return target == ErrSpec }

func specErrorf(format string, args ...any) error {
	return &specError{msg: fmt.Sprintf(format, args...)}
}

// imageError is an ErrImage whose message is its own one line.
type imageError struct{ msg string }

func (e *imageError) Error() string        { return e.msg }
func (e *imageError) Is(target error) bool { return target == ErrImage }

func imageErrorf(format string, args ...any) error {
	return &imageError{msg: fmt.Sprintf(format, args...)}
}

// SlotError is the ErrImage of an output slot too small for a sample (a
// pipeline without a final crop gives every image its own size): Need is
// the bytes the sample takes, so that a caller can grow the slot and try
// again.
type SlotError struct{ W, H, Need, Have int }

func (e *SlotError) Error() string {
	return fmt.Sprintf("the %dx%d output needs %d bytes, the slot holds %d (without a final crop every image has its own size)",
		e.W, e.H, e.Need, e.Have)
}

// Is matches ErrImage.
func (e *SlotError) Is(target error) bool { return target == ErrImage }
