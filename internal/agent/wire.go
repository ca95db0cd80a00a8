package agent

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

// AgentSocketEnv names the variable that tells a learner its agent's socket
// (the same as topology.AgentSocketEnv).
const AgentSocketEnv = "LMDBIO_AGENT_SOCKET"

// ProtocolVersion is the version of the messages below; a learner and an
// agent of different versions refuse each other at Hello.
const ProtocolVersion = 1

// Bounds of what a frame may hold.
const (
	MaxFrame   = 4 << 20 // bytes of one message
	MaxValues  = 1 << 16 // values of one Allreduce
	MaxPath    = 4096    // bytes of a dataset path
	MaxOptions = 1 << 16 // bytes of an option string
	MaxMessage = 4096    // bytes of an error message
)

// ErrProtocol marks bytes that are not a valid message.
var ErrProtocol = errors.New("agent: bad message")

// The calls of a Request. Closed is a notice, not a call: the agent does
// not answer it.
const (
	OpHello     = "hello"
	OpOpen      = "open"
	OpAllreduce = "allreduce"
	OpClosed    = "closed"
)

// Request is what a learner asks its agent.
type Request struct {
	Op string `json:"op"`
	// hello
	Version int `json:"version,omitempty"`
	Local   int `json:"local,omitempty"`
	Pid     int `json:"pid,omitempty"`
	// open: the dataset, its options in loaderopts' canonical form, and
	// the learner's own objection to them ("" for none), said to every
	// learner in its place.
	Path    string `json:"path,omitempty"`
	Options string `json:"options,omitempty"`
	Refused *Error `json:"refused,omitempty"`
	// allreduce
	Values []uint64 `json:"values,omitempty"`
	// closed: the learner closed its loader of this session
	Session uint64 `json:"session,omitempty"`
}

// Reply answers one Request. Error is set when the call failed; otherwise
// the field of the call is.
type Reply struct {
	Error    *Error    `json:"error,omitempty"`
	Topology *Topology `json:"topology,omitempty"` // hello
	Socket   string    `json:"socket,omitempty"`   // open: the node reader's
	Session  uint64    `json:"session,omitempty"`  // open: its number, for Closed
	Values   []uint64  `json:"values,omitempty"`   // allreduce: the sums
}

// Topology is where a learner stands in the job, as torchrun numbers its
// workers: Rank = Node*LocalSize + Local.
type Topology struct {
	Rank      int    `json:"rank"`
	Size      int    `json:"size"`
	Node      int    `json:"node"`
	Nodes     int    `json:"nodes"`
	Local     int    `json:"local"`
	LocalSize int    `json:"local_size"`
	AgentPid  int    `json:"agent_pid"`
	Host      string `json:"host"`
}

// Error is a failed call, with whose failure it is. On the wire the Kind
// is its name ("argument", "input", "launch", "runtime", "internal").
type Error struct {
	Kind    failure.Kind `json:"kind"`
	Message string       `json:"message"`
}

func (e *Error) Error() string { return e.Message }

// FailureKind is the Kind the error was sent with, for failure.KindOf.
func (e *Error) FailureKind() failure.Kind { return e.Kind }

// UnmarshalJSON reads an Error strictly, as strict reads a message, and
// refuses one without a kind: Kind's zero value is a kind, runtime, which a
// peer that sends none has not said.
func (e *Error) UnmarshalJSON(b []byte) error {
	var w struct {
		Kind    *failure.Kind `json:"kind"`
		Message string        `json:"message"`
	}
	if err := strict(b, &w); err != nil {
		return err
	}
	if w.Kind == nil {
		return fmt.Errorf("%w: an error without a kind", ErrProtocol)
	}
	*e = Error{Kind: *w.Kind, Message: w.Message}
	return nil
}

// ReadFrame reads one frame's payload.
func ReadFrame(r io.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(head[:])
	if n == 0 || n > MaxFrame {
		return nil, fmt.Errorf("%w: a frame of %d bytes (1 to %d)", ErrProtocol, n, MaxFrame)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}

// AppendFrame appends v, encoded as JSON, as one frame.
func AppendFrame(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	if len(b) > MaxFrame {
		return dst, fmt.Errorf("%w: a message of %d bytes (at most %d)", ErrProtocol, len(b), MaxFrame)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...), nil
}

// strict decodes one JSON object into v, refusing unknown fields and
// anything after it.
func strict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrProtocol, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: bytes after the message", ErrProtocol)
	}
	return nil
}

// DecodeRequest reads and checks a Request.
func DecodeRequest(b []byte) (Request, error) {
	var r Request
	if err := strict(b, &r); err != nil {
		return Request{}, err
	}
	bad := func(format string, args ...any) (Request, error) {
		return Request{}, fmt.Errorf("%w: %s: %s", ErrProtocol, r.Op, fmt.Sprintf(format, args...))
	}
	hello := r.Version != 0 || r.Local != 0 || r.Pid != 0
	open := r.Path != "" || r.Options != "" || r.Refused != nil
	if r.Session != 0 && r.Op != OpClosed {
		return bad("fields of another call")
	}
	switch r.Op {
	case OpClosed:
		if hello || open || r.Values != nil || r.Session == 0 {
			return bad("fields of another call, or no session")
		}
	case OpHello:
		switch {
		case open || r.Values != nil:
			return bad("fields of another call")
		case r.Version < 1 || r.Local < 0 || r.Local >= 1<<16 || r.Pid < 0:
			return bad("version %d, local rank %d, pid %d", r.Version, r.Local, r.Pid)
		}
	case OpOpen:
		switch {
		case hello || r.Values != nil:
			return bad("fields of another call")
		case r.Path == "" && r.Refused == nil || len(r.Path) > MaxPath || len(r.Options) > MaxOptions:
			return bad("a path of %d bytes and options of %d", len(r.Path), len(r.Options))
		case r.Refused != nil && !r.Refused.valid():
			return bad("a bad objection")
		}
	case OpAllreduce:
		switch {
		case hello || open:
			return bad("fields of another call")
		case len(r.Values) > MaxValues:
			return bad("%d values (at most %d)", len(r.Values), MaxValues)
		}
	default:
		return Request{}, fmt.Errorf("%w: unknown call %q", ErrProtocol, r.Op)
	}
	return r, nil
}

// DecodeReply reads and checks a Reply to a call of op.
func DecodeReply(b []byte, op string) (Reply, error) {
	var r Reply
	if err := strict(b, &r); err != nil {
		return Reply{}, err
	}
	if r.Error != nil {
		if !r.Error.valid() || r.Topology != nil || r.Socket != "" || r.Values != nil || r.Session != 0 {
			return Reply{}, fmt.Errorf("%w: a bad error reply", ErrProtocol)
		}
		return r, nil
	}
	ok := false
	switch op {
	case OpHello:
		t := r.Topology
		ok = t != nil && r.Socket == "" && r.Values == nil && r.Session == 0 && t.Nodes >= 1 && t.LocalSize >= 1 &&
			t.Node >= 0 && t.Node < t.Nodes && t.Local >= 0 && t.Local < t.LocalSize &&
			t.Size == t.Nodes*t.LocalSize && t.Rank == t.Node*t.LocalSize+t.Local
	case OpOpen:
		ok = r.Topology == nil && r.Socket != "" && len(r.Socket) <= MaxPath && r.Values == nil && r.Session != 0
	case OpAllreduce:
		ok = r.Topology == nil && r.Socket == "" && len(r.Values) <= MaxValues && r.Session == 0
	}
	if !ok {
		return Reply{}, fmt.Errorf("%w: not an answer to %s", ErrProtocol, op)
	}
	return r, nil
}

func (e *Error) valid() bool {
	return e.Kind.Valid() && e.Message != "" && len(e.Message) <= MaxMessage
}

// newError makes an Error, its message cut to MaxMessage.
func newError(kind failure.Kind, msg string) *Error {
	if len(msg) > MaxMessage {
		msg = msg[:MaxMessage-3] + "..."
	}
	if msg == "" {
		msg = "failed"
	}
	return &Error{Kind: kind, Message: msg}
}
