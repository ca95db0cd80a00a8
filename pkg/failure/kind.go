package failure

import "fmt"

// Kind says whose a failure is, and so what a user should do about it.
type Kind uint8

// The kinds of failure. Runtime is the zero value: what an unmarked error
// is.
// Their numbers are fixed: the node reader sends a learner the number.
const (
	Runtime  Kind = 0 // I/O, MPI, another rank or node: the machine at run time
	Input    Kind = 1 // the dataset or another input: missing, unreadable, corrupt, unsupported
	Argument Kind = 2 // the caller's arguments: options, a mismatch between learners
	Launch   Kind = 3 // how the job was launched, or a launch setting
	Internal Kind = 4 // a bug in lmdbio
)

// names are the Kinds' names, on the wire and in messages.
var names = [...]string{
	Runtime:  "runtime",
	Argument: "argument",
	Input:    "input",
	Launch:   "launch",
	Internal: "internal",
}

// Kinds lists every Kind, for the tables that map them.
func Kinds() []Kind { return []Kind{Argument, Input, Launch, Runtime, Internal} }

// Valid reports whether k is one of the Kinds.
func (k Kind) Valid() bool { return int(k) < len(names) }

func (k Kind) String() string {
	if !k.Valid() {
		return fmt.Sprintf("failure.Kind(%d)", uint8(k))
	}
	return names[k]
}

// MarshalText gives k's name; a Kind that is none of the Kinds is an error.
func (k Kind) MarshalText() ([]byte, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("failure: no kind %d", uint8(k))
	}
	return []byte(names[k]), nil
}

// UnmarshalText reads a Kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range names {
		if string(b) == n {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("failure: no kind %q", b)
}
