package handoff

import (
	"fmt"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

// Type is the type byte of a frame.
type Type uint8

// Message types. The values are part of the wire format: never renumber.
const (
	TypeHello      Type = 1 // client -> server, first frame on a connection
	TypeBatch      Type = 2 // server -> client
	TypeEndOfEpoch Type = 3 // server -> client
	TypeRelease    Type = 4 // client -> server
	TypeFail       Type = 5 // either direction
	TypeBye        Type = 6 // client -> server, last frame of a clean close
	TypeWelcome    Type = 7 // server -> client, first frame after Hello, with the node's files
)

// String names the type for error messages.
func (t Type) String() string {
	switch t {
	case TypeHello:
		return "Hello"
	case TypeBatch:
		return "Batch"
	case TypeEndOfEpoch:
		return "EndOfEpoch"
	case TypeRelease:
		return "Release"
	case TypeFail:
		return "Fail"
	case TypeBye:
		return "Bye"
	case TypeWelcome:
		return "Welcome"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Message is one of Hello, Welcome, Batch, EndOfEpoch, Release, Fail and Bye. The set
// is closed: the unexported method keeps other packages from adding to it.
type Message interface {
	// Type returns the frame's type byte.
	Type() Type
	// appendPayload appends the payload (the bytes after the type byte).
	appendPayload(b []byte) []byte
}

// Hello is the first message a learner sends after connecting: it tells the
// server which local rank is on the other end of the socket.
type Hello struct {
	LocalRank uint32
	Pid       uint32
}

// Item places one record of a batch in the node's shared memory. The value
// lies in segment Segment (an index into the files Welcome passed); the key
// and the label lie in segment 0, the arena.
type Item struct {
	Record      int64  // index of the record in the data set
	Segment     uint32 // segment holding the value
	Offset      int64  // byte offset of the record's value in its segment
	Length      int64  // length of the value in bytes
	KeyOffset   int64  // byte offset of the record's key in the arena
	KeyLength   int64  // length of the key in bytes
	LabelOffset int64  // byte offset of the record's label in the arena
	LabelLength int64  // length of the label in bytes; 0 without labels
}

// Batch tells a learner where the records of its next batch lie in the arena.
// The bytes stay valid until the learner sends Release with the same ID.
type Batch struct {
	ID    uint64
	Epoch uint32
	Items []Item
}

// EndOfEpoch tells a learner that it has received every batch of Epoch.
type EndOfEpoch struct {
	Epoch uint32
}

// Release tells the server that the learner no longer uses batch ID, so its
// arena bytes may be reused.
type Release struct {
	ID uint64
	// Learner is the local rank that sent the Release. It is not on the wire:
	// the Server fills it in from the connection the message arrived on.
	Learner int
}

// Fail tells the peer that this side failed, and why. The peer stops.
// Kind says whose the failure is (a corrupt or unsupported dataset is the
// input's, a bad option the arguments'), so that every process reports it
// with the status of that kind.
type Fail struct {
	Msg  string
	Kind failure.Kind
}

// Bye is a learner's last message on a clean Close.
type Bye struct{}

// Welcome is the node reader's answer to Hello. It travels with the node's
// shared-memory files (SCM_RIGHTS), in the order the Items' Segment numbers
// refer to them, and carries Config: what the learner needs to know about
// the run, opaque to the handoff (the loader puts JSON there).
type Welcome struct {
	Config []byte
}

// Type implements Message.
func (Hello) Type() Type { return TypeHello }

// Type implements Message.
func (Batch) Type() Type { return TypeBatch }

// Type implements Message.
func (EndOfEpoch) Type() Type { return TypeEndOfEpoch }

// Type implements Message.
func (Release) Type() Type { return TypeRelease }

// Type implements Message.
func (Fail) Type() Type { return TypeFail }

// Type implements Message.
func (Bye) Type() Type { return TypeBye }

// Type implements Message.
func (Welcome) Type() Type { return TypeWelcome }
