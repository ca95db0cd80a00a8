//go:build cgo

package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/lmdbio/lmdbio/mpi"
)

// A learner that fails while the others go on must end the job at once:
// the others wait for it in a collective call (the next batch's exchange,
// a close, MPI_Finalize) that would never end, and a wedged job burns its
// whole allocation. So a failing process never finalises; it aborts.

// abort ends the job for a process that failed with status: in one line
// on stderr it names the rank, its host and what happened, then ends every
// rank (MPI_Abort, which the launcher turns into the end of the job). A
// learner of an agent says the same line and exits with status without
// closing anything: its agent sees it fail and ends the job (lmdbio run
// keeps the learner's line, which says more, and drops the agent's). It
// returns only when there is nothing to end: before lmdbio_init, after
// lmdbio_finalize, or in a job of one process, where the caller's normal
// exit path is as good. The exit handler (atExit) also leaves a process
// alone that exits of a failed lmdbio_open: every rank got that failure,
// so every rank exits of it and finalising waits for no one.
func abort(status int, what string, atExit bool) {
	if status == 0 {
		status = 1 // an abort is a failure, whatever the caller passed
	}
	// Held to the end, so that no other thread starts a collective call;
	// but a thread may be blocked inside one (a close, lmdbio_finalize)
	// while holding it, and ending the job is what unblocks it.
	locked := lockWithin(abortLockWait)
	j := session.job
	if j == nil || j.where().size < 2 || atExit && session.openFailed {
		if locked {
			session.Unlock()
		}
		return
	}
	switch j := j.(type) {
	case *agentJob:
		fmt.Fprintln(os.Stderr, abortLine(j.where(), j.client.Topology().Host, what))
		time.Sleep(lineHeadStart) // before the agent's notice of the exit
	case *mpiJob:
		fmt.Fprintln(os.Stderr, abortLine(j.where(), j.topo.Host, what))
		// The launcher forwards the rank's stderr on its own time, and
		// prints its notice of the abort at once: a moment lets the line
		// that says why come first.
		time.Sleep(lineHeadStart)
		mpi.Abort(status)
	}
	os.Exit(status) // an agent's learner: its agent ends the job
}

// abortLockWait bounds how long abort waits for the session; lineHeadStart
// is the time its line gets to reach the launcher before MPI_Abort.
const (
	abortLockWait = 2 * time.Second
	lineHeadStart = 200 * time.Millisecond
)

// lockWithin locks the session unless another thread holds it for longer
// than wait.
func lockWithin(wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for !session.TryLock() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// abortLine is the job's one line for a failing rank.
func abortLine(p position, host, what string) string {
	what = strings.Join(strings.Fields(what), " ") // one line, whatever the program's message holds
	if what == "" {
		what = "failed"
	}
	return fmt.Sprintf("lmdbio: rank %d (local rank %d of node %d on %s, pid %d) %s; ending the job",
		p.rank, p.local, p.node, host, os.Getpid(), what)
}
