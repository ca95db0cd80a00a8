// Package failure says whose a failure is: the one model of errors that
// every interface of lmdbio reports from.
//
// # Overview
//
// A Kind names who can fix a failure: the caller's arguments (Argument),
// the dataset or what the user handed in (Input), the way the job was
// launched (Launch), the machine at run time (Runtime), or lmdbio itself
// (Internal). An error gets its Kind where it is made, not where it is
// reported:
//
//	var ErrCorrupt = failure.New(failure.Input, "index: corrupt")  // a sentinel
//	return failure.Mark(err, failure.Launch)                      // one error
//
// and an error type may say its own Kind with a method FailureKind() Kind.
// KindOf reads it back, through any wrapping that errors.Is and errors.As
// see. Each interface turns a Kind into what its users see with one table:
// the exit status of the command line (cmd/lmdbio), the status code of the
// C library (cmd/liblmdbio), the kind on an agent's wire (internal/agent)
// and the exception class of the Python binding (python/lmdbio).
//
// A Go trainer asks the same question of what loader.Open and Next return:
//
//	if failure.KindOf(err) == failure.Input { /* the dataset is the problem */ }
//
// # Invariants
//
//   - Marking keeps the error as it was: Mark(err, k).Error() == err.Error(),
//     and errors.Is and errors.As see err and whatever it wraps.
//   - The outermost mark wins: Mark(Mark(err, Input), Argument) is an
//     Argument. A rank that agrees with others on a failure re-marks its
//     own error with the agreed Kind this way.
//   - An error that no mark reaches is Runtime, except the few errors of the
//     operating system that say a path the user named cannot be a dataset
//     (fs.ErrNotExist, fs.ErrPermission, ELOOP, ENOTDIR, ENAMETOOLONG),
//     which are Input: they come from os and syscall, where nothing can mark
//     them.
//   - Kind's zero value is Runtime; the numbers of the Kinds never change
//     (they travel as a byte). Every Kind has a name (String,
//     MarshalText) that UnmarshalText reads back; no other name is read.
package failure
