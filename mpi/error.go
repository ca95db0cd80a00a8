package mpi

import "fmt"

// Error is a failure of an MPI call, or an argument mistake found before the
// call was made.
type Error struct {
	Op   string // the MPI call, e.g. "MPI_Alltoallv"
	Code int    // MPI error code, or CodeInvalid
	Msg  string // MPI_Error_string of Code, or what is wrong with the arguments
}

// CodeInvalid is the Code of errors the binding finds in the arguments before
// calling MPI. MPI error codes are never negative, so it cannot collide.
const CodeInvalid = -1

// Error returns "mpi: <Op>: <Msg>".
func (e *Error) Error() string {
	return "mpi: " + e.Op + ": " + e.Msg
}

// invalid returns an *Error with Code CodeInvalid.
func invalid(op, format string, args ...any) *Error {
	return &Error{Op: op, Code: CodeInvalid, Msg: fmt.Sprintf(format, args...)}
}
