package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/lmdbio/lmdbio/internal/startup"
	"github.com/lmdbio/lmdbio/pkg/failure"
)

// Program is the name error lines start with: "lmdbio", or "lmdbio-bench"
// in the kit's command, which sets it before it runs.
var Program = "lmdbio"

// Exit statuses. A command's error gets one by its failure.Kind
// (ExitCodes), in Report, and nowhere else; only an exit status that a job
// the launcher ran chose already is passed on as it is (WithCode, Quiet).
const (
	ExitOK      = 0
	ExitFailure = 1 // a runtime failure
	ExitUsage   = 2 // bad input or usage
)

// ExitCodes is the exit status of each kind of failure: the one place where
// a failure.Kind becomes an exit status.
var ExitCodes = map[failure.Kind]int{
	failure.Argument: ExitUsage,
	failure.Input:    ExitUsage,
	failure.Launch:   ExitUsage,
	failure.Runtime:  ExitFailure,
	failure.Internal: ExitFailure,
}

// ExitStatusHelp ends every command's help: the exit contract.
const ExitStatusHelp = `

EXIT STATUS
  0  success
  1  a runtime failure (I/O, MPI, a rank that died)
  2  bad input or usage (flags, paths, corrupt or unsupported datasets)`

// exitError is a command's error as Report prints it: a mistake on the
// command line names the command; an exit status passed on from a job is
// kept.
type exitError struct {
	code  int  // the status a job chose; 0: by the error's Kind
	usage bool // a mistake on the command line: the error line names the command
	err   error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// UsageError marks err as a mistake on the command line (an argument: exit
// 2); its line names the command: "lmdbio info: needs a PATH".
func UsageError(err error) error {
	return &exitError{usage: true, err: failure.Mark(err, failure.Argument)}
}

// InputError marks err as bad input other than the command line: a dataset, a
// variable, the way the job was launched (exit 2). An error that is already
// the user's to fix keeps its kind (a bad launch stays a launch error).
func InputError(err error) error {
	switch failure.KindOf(err) {
	case failure.Argument, failure.Input, failure.Launch:
		return err
	}
	return failure.Mark(err, failure.Input)
}

// Usagef formats a usage error.
func Usagef(format string, args ...any) error { return UsageError(fmt.Errorf(format, args...)) }

// WithCode passes on the exit status of a job the launcher ran, which the
// job's ranks chose; a nil err stays nil.
func WithCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// ExitCode maps an error to the process exit status: a status passed on,
// else its Kind's.
func ExitCode(err error) int {
	var ee *exitError
	var q quietError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee) && ee.code != 0:
		return ee.code
	case errors.As(err, &q): // agreed on before, and agreed on again
		return q.code
	}
	return ExitCodes[failure.KindOf(err)]
}

// Report prints err as the one line the user sees and returns the exit
// status. command is the command that ran ("lmdbio info"), named by usage
// errors; other errors start "lmdbio: ", unless they name their command
// themselves ("lmdbio run: ...").
func Report(command string, err error) int {
	if err == nil || errors.Is(err, ErrQuiet) {
		return ExitCode(unquiet(err))
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, Program+": interrupted")
		return ExitFailure
	}
	fmt.Fprintln(os.Stderr, ErrorLine(command, err))
	return ExitCode(err)
}

// ReportOnce is Report for a command's outcome on every rank of a job: a
// mistake on the command line that no rank reported yet (found before MPI
// started, where the ranks cannot agree who says it) is the same on every
// rank, so only rank 0 says it: once, not once for every rank that got to
// say it before the job ended. The other ranks wait startup.Grace before
// they end, as those of a start-up past its limit do: a launcher ends the
// job at the first rank that exits non-zero, which must not be one that
// says nothing while rank 0 has not spoken yet. Errors found later are
// agreed on, and reported by one rank (AgreeOn).
func ReportOnce(command string, err error) int {
	var ee *exitError
	if errors.As(err, &ee) && ee.usage && startup.LaunchRank(os.Getenv) > 0 {
		time.Sleep(startup.Grace)
		return ExitCode(err)
	}
	return Report(command, err)
}

// ErrorLine formats err as one line.
func ErrorLine(command string, err error) string {
	msg := dedupePrefixes(strings.Join(strings.Fields(err.Error()), " "))
	if msg == Program || strings.HasPrefix(msg, Program+" ") || strings.HasPrefix(msg, Program+":") {
		return msg
	}
	var ee *exitError
	if command == "" || !errors.As(err, &ee) || !ee.usage {
		command = Program
	}
	// "lmdbio gen: gen: ..." when the error comes from the package named
	// like the command.
	name := command[strings.LastIndexByte(command, ' ')+1:]
	return command + ": " + strings.TrimPrefix(msg, name+": ")
}

// dedupePrefixes drops a "word: " prefix said before in the line, as errors
// wrapped twice by one package read ("reader: reader: short read", "shm:
// create x: shm: no space"): a segment repeated right after itself, or a
// package name (one lower-case word) repeated anywhere.
func dedupePrefixes(msg string) string {
	parts := strings.Split(msg, ": ")
	out := parts[:1]
	seen := map[string]bool{parts[0]: true}
	for _, p := range parts[1:] {
		if p == out[len(out)-1] || (seen[p] && IsPackageName(p)) {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return strings.Join(out, ": ")
}

// IsPackageName reports a word that reads as a Go package's name: lower-case
// letters and digits.
func IsPackageName(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789") == ""
}

// ErrQuiet marks an error another rank, or the job the launcher ran, has
// already reported: this rank only exits with the status agreed on.
var ErrQuiet = errors.New("reported elsewhere")

type quietError struct{ code int }

func (q quietError) Error() string { return ErrQuiet.Error() }
func (q quietError) Is(target error) bool {
	return target == ErrQuiet
}

// Quiet passes on the exit status of a job the launcher ran, which its
// ranks reported.
func Quiet(code int) error { return quietError{code: code} }

// quietAgreed is a failure of kind k that the ranks agreed on and another
// rank reported; an agreement after this one finds it of kind k again.
func quietAgreed(k failure.Kind) error { return failure.Mark(quietError{code: ExitCodes[k]}, k) }

func unquiet(err error) error {
	var q quietError
	if errors.As(err, &q) {
		return &exitError{code: q.code, err: err}
	}
	return err
}
