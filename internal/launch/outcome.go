package launch

import (
	"fmt"
	"syscall"

	"github.com/lmdbio/lmdbio/internal/cli"
)

// jobOutcome is how a job ended, as lmdbio run saw it.
type jobOutcome struct {
	launcher  string         // the launcher's name, for messages
	exitCode  int            // the launcher's exit status when it exited
	signaled  syscall.Signal // the signal that ended the launcher; 0 if it exited
	stoppedBy syscall.Signal // a signal lmdbio run itself got (and passed on) that stops jobs; 0 if none
	death     *rankDeath     // the first rank the launcher reported dead by a signal
	ranksSaid bool           // lmdbio run stopped the launcher after a rank said why it failed
}

// status maps the outcome to lmdbio's exit contract (0 success, 1 a
// runtime failure, 2 bad input or usage) and the one line that says why,
// "" when the ranks have said it themselves. Launchers pass on a rank's
// exit status (lmdbio's ranks exit 1 or 2 with their own line) and report
// a rank's signal as 128+N (Open MPI, srun) or N (MPICH), which would read
// as bad input when N is 2 (SIGINT): a signal is always a runtime failure.
func (o jobOutcome) status() (int, string) {
	failed := o.signaled != 0 || o.exitCode != 0
	switch {
	case !failed:
		return cli.ExitOK, ""
	case o.stoppedBy != 0:
		return cli.ExitFailure, "stopped by " + signalName(o.stoppedBy)
	case o.death != nil:
		return cli.ExitFailure, o.death.String()
	case o.ranksSaid:
		return cli.ExitFailure, "" // the rank said why
	case o.signaled != 0:
		return cli.ExitFailure, fmt.Sprintf("%s was killed by signal %d (%s)", o.launcher, int(o.signaled), signalName(o.signaled))
	case o.exitCode == cli.ExitFailure || o.exitCode == cli.ExitUsage:
		return o.exitCode, ""
	case o.exitCode > 128 && o.exitCode < 128+65:
		// Open MPI and srun say 128+N for a rank killed by signal N, but
		// name the rank only when it was an MPI process.
		sig := syscall.Signal(o.exitCode - 128)
		return cli.ExitFailure, fmt.Sprintf("the job failed: %s exited with status %d (a rank was killed by %s, or exited with %d)",
			o.launcher, o.exitCode, signalName(sig), o.exitCode)
	default:
		return cli.ExitFailure, fmt.Sprintf("the job failed: %s exited with status %d", o.launcher, o.exitCode)
	}
}
