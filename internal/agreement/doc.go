// Package agreement makes the ranks of an MPI communicator agree on a
// failure: after a step that every rank took on its own, each learns
// whether any rank failed, of what Kind, and which rank's failure it is,
// so that every rank reports the same failure with the same status.
//
// # Overview
//
// OnFailure is one collective (one allreduce) over the communicator; each
// rank brings its outcome of the step, an error or nil. OnFailureMax
// carries a vector of maximums in the same allreduce, for steps that
// gather a little data as they check (a round among every rank saved is
// worth it: the loader's Open makes many). The Failure they return says
// what the ranks agreed on; Own gives a failing rank's error the agreed
// Kind. What a rank then says is its caller's: the loader broadcasts the
// agreed rank's message, the command line lets that rank print it and the
// others exit quietly, the C library tells every rank which rank refused.
//
// # Invariants
//
//   - Every rank of the communicator gets the same Failure: Failed, Kind
//     and Rank are the same on every rank.
//   - The agreed failure is the most pressing Kind that any rank had (a
//     fault of the caller's arguments first, then of the launch, of the
//     input, at run time, and last lmdbio's own), and among the ranks with
//     it the lowest. A rank that learnt of another's failure carries the
//     Kind that rank gave it (failure.KindOf of a remote error), so the
//     most pressing Kind is the failure as the rank that had it classed it:
//     a bad option that reached other ranks as something else is reported
//     as the bad option it is, everywhere.
//   - The vector of OnFailureMax is the element-wise maximum over all
//     ranks, whether or not a rank failed.
//   - Both are collective: every rank of the communicator calls them, in
//     the same order as every other collective on it.
package agreement
