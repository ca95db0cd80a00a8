package loader

import (
	"fmt"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

// Every error of Open, Attach and Next has a kind (Open's is the same on
// every rank of the job): failure.KindOf(err) says whether the options
// (Argument), the dataset (Input), the launch (Launch) or the run (Runtime)
// failed.

// ErrBadOption marks an option value the loader cannot work with.
var ErrBadOption = failure.New(failure.Argument, "bad option")

// ErrBadInput marks a failure that another rank reported about the dataset
// or the options (missing, corrupt, unsupported, too big for /dev/shm): the
// user's to fix.
var ErrBadInput = failure.New(failure.Input, "bad input")

// remoteError is a failure another rank had, as it reported it and with
// the kind it gave it, so that every rank reports the failure alike.
type remoteError struct {
	rank int
	msg  string
	kind failure.Kind
}

func (e *remoteError) Error() string { return fmt.Sprintf("rank %d: %s", e.rank, e.msg) }

// FailureKind is the kind the failing rank gave its failure.
func (e *remoteError) FailureKind() failure.Kind { return e.kind }

// Is matches the sentinels of the kinds: ErrBadOption a bad option's,
// ErrBadInput a bad option's and bad input's (both the user's to fix).
func (e *remoteError) Is(target error) bool {
	return (target == ErrBadInput && (e.kind == failure.Input || e.kind == failure.Argument)) ||
		(target == ErrBadOption && e.kind == failure.Argument)
}
