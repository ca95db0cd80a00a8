package failure

import (
	"errors"
	"io/fs"
	"syscall"
)

// Kinded is an error that says its own Kind. Error types that carry a
// failure from elsewhere (another rank, a node reader, an agent) implement
// it with the Kind they were sent.
type Kinded interface {
	error
	FailureKind() Kind
}

// marked is an error with the Kind it was marked with.
type marked struct {
	err  error
	kind Kind
}

func (m *marked) Error() string     { return m.err.Error() }
func (m *marked) Unwrap() error     { return m.err }
func (m *marked) FailureKind() Kind { return m.kind }

// Mark gives err the Kind k, keeping what errors.Is and errors.As see in it.
// Mark(nil, k) is nil.
func Mark(err error, k Kind) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, kind: k}
}

// New makes an error of Kind k with the text, for a package's sentinel:
//
//	var ErrCorrupt = failure.New(failure.Input, "index: corrupt")
//
// Errors that wrap it (fmt.Errorf("%w: ...", ErrCorrupt)) are of Kind k
// and still errors.Is(err, ErrCorrupt).
func New(k Kind, text string) error { return Mark(errors.New(text), k) }

// pathErrors are the operating system's answers to a path that cannot name
// a dataset. os and syscall make them, where no mark can be put.
var pathErrors = []error{fs.ErrNotExist, fs.ErrPermission, syscall.ELOOP, syscall.ENOTDIR, syscall.ENAMETOOLONG}

// KindOf says whose err is: the Kind of the outermost mark (or Kinded
// error) in err's tree, else Input for a path that names nothing usable
// (pathErrors), else Runtime. KindOf(nil) is Runtime: ask it of failures.
func KindOf(err error) Kind {
	var k Kinded
	if errors.As(err, &k) {
		return k.FailureKind()
	}
	for _, target := range pathErrors {
		if errors.Is(err, target) {
			return Input
		}
	}
	return Runtime
}
