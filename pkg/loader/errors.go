package loader

import (
	"errors"
	"fmt"
)

// ErrBadOption marks an option value the loader cannot work with.
var ErrBadOption = errors.New("bad option")

// ErrBadInput marks a failure that another rank reported about the dataset
// or the options (missing, corrupt, unsupported, too big for /dev/shm): the
// user's to fix.
var ErrBadInput = errors.New("bad input")

// remoteError is a failure another rank had, as it reported it and with
// the class it gave it, so that every rank reports the failure alike.
type remoteError struct {
	rank      int
	msg       string
	badInput  bool
	badOption bool
}

func (e *remoteError) Error() string { return fmt.Sprintf("rank %d: %s", e.rank, e.msg) }

func (e *remoteError) Is(target error) bool {
	return (target == ErrBadInput && e.badInput) || (target == ErrBadOption && e.badOption)
}
