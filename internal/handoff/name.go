package handoff

import (
	"fmt"
	"strings"
)

// SocketName returns the socket name of a node reader: "@lmdbio.<job>.<node>.<pid>".
// The leading '@' puts the socket in Linux's abstract namespace, so nothing is
// created on disk and nothing outlives the process. job tells apart jobs that
// share a node (e.g. the Slurm job and step id); node is the node's index in
// the job; pid is the node reader's process id, known to the other local ranks
// from the node's setup, which keeps two runs of the same job apart.
func SocketName(job string, node, pid int) string {
	// '/' and NUL are legal in abstract names but make them hard to read in
	// ss(8) and error messages; a job id never needs them.
	job = strings.Map(func(r rune) rune {
		if r == '/' || r == 0 || r == ' ' {
			return '_'
		}
		return r
	}, job)
	return fmt.Sprintf("@lmdbio.%s.%d.%d", job, node, pid)
}
