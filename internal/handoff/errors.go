package handoff

import (
	"errors"
	"fmt"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

// Sentinel errors, for errors.Is.
var (
	// ErrCorrupt: the bytes of a frame do not describe a valid message.
	ErrCorrupt = errors.New("ring: corrupt frame")
	// ErrProtocol: a well-formed message that is not allowed where it came
	// (an unknown type, a Batch sent to the server, a second Hello...).
	ErrProtocol = errors.New("ring: protocol violation")
	// ErrTooLarge: Encode was given a message that exceeds the frame bounds.
	ErrTooLarge = errors.New("ring: message too large")
	// ErrPeerGone: the other end closed the connection without saying so
	// (crashed, killed, or closed without Bye).
	ErrPeerGone = errors.New("ring: peer went away")
	// ErrPeerFailed: the other end sent Fail.
	ErrPeerFailed = errors.New("ring: peer failed")
	// ErrPeerClosed: a Send to a learner that already said Bye: it stopped
	// reading on purpose, so the message is not needed.
	ErrPeerClosed = errors.New("ring: learner closed")
	// ErrClosed: the Server or Client was closed by its owner.
	ErrClosed = errors.New("ring: closed")
)

// classError is an error whose text is complete on its own but that still
// matches its class with errors.Is; wrapping the sentinel with %w would
// repeat "ring:" in the middle of the message.
type classError struct {
	msg   string
	class error
}

func (e *classError) Error() string { return e.msg }
func (e *classError) Unwrap() error { return e.class }

// classErrorf formats a message and files it under class.
func classErrorf(class error, format string, args ...any) error {
	return &classError{msg: fmt.Sprintf(format, args...), class: class}
}

// PeerFailure is the failure the node reader told a learner of (Fail). Its
// text is the node reader's own, its Kind the one the node reader gave it;
// it matches ErrPeerFailed.
type PeerFailure struct {
	Msg  string
	Kind failure.Kind
}

// FailureKind is the Kind the node reader sent, for failure.KindOf.
func (e *PeerFailure) FailureKind() failure.Kind { return e.Kind }

func (e *PeerFailure) Error() string { return e.Msg }
func (e *PeerFailure) Unwrap() error { return ErrPeerFailed }
