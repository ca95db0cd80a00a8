package cli

import (
	"time"

	"github.com/lmdbio/lmdbio/mpi"
)

// WaitPause bounds the pauses of ranks that wait for others: a rank
// that finished its part sleeps until the rest arrive instead of spinning
// in MPI, which on a machine with fewer cores than ranks would take the
// cores from the ranks and peer programs still being measured.
const WaitPause = time.Millisecond

// GatherStrings collects one string from every rank at root, in rank order.
// Other ranks get nil. Ranks may arrive far apart: they wait sleeping.
func GatherStrings(c *mpi.Comm, s string, root int) ([]string, error) {
	if err := c.BarrierSleeping(WaitPause); err != nil {
		return nil, err
	}
	all, err := c.GatherBytes([]byte(s), root)
	if err != nil || all == nil {
		return nil, err
	}
	out := make([]string, len(all))
	for i, b := range all {
		out[i] = string(b)
	}
	return out, nil
}
