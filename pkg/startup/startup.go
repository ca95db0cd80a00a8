// Package startup bounds the start-up of an MPI job: MPI_Init and the first
// collectives, in which some MPI libraries wait forever for ranks that
// cannot reach each other (a network or transport setting). lmdbio's
// commands and its C library both use it, so a job started either way ends
// alike, with the same line, when its ranks cannot meet.
package startup

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Env names the variable that sets the limit, a duration such as 30s.
const Env = "LMDBIO_STARTUP_TIMEOUT"

// Default is the limit when Env is not set.
const Default = 3 * time.Minute

// ExitStatus is the status of a process the limit ended: a runtime
// failure, as lmdbio's commands report one.
const ExitStatus = 1

// The process's exit and error stream, replaced by tests.
var (
	exit             = os.Exit
	stderr io.Writer = os.Stderr
)

// Limit reads Env through getenv: Default when it is unset, an error
// naming the variable when it is not a positive duration.
func Limit(getenv func(string) string) (time.Duration, error) {
	v := getenv(Env)
	if v == "" {
		return Default, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 30s", Env, v)
	}
	return d, nil
}

// Watch ends the process with one line and ExitStatus if the start-up has
// not finished within d, and returns the function that calls the watch
// off. A rank blocked inside MPI cannot be woken or made to return, so
// ending it is all there is to do; its exit ends the job through the
// launcher. The process ends at once: exit handlers (atexit, a language
// runtime's) would call into the MPI that is blocked.
func Watch(d time.Duration) (stop func()) {
	timer := time.AfterFunc(d, func() {
		fmt.Fprintf(stderr, "lmdbio: MPI did not finish starting in %v: the ranks may not reach each other (network, firewall, or the MPI's transport settings such as --mca btl); %s sets the limit\n", d, Env)
		exit(ExitStatus)
	})
	return func() { timer.Stop() }
}
