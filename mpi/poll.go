package mpi

import "time"

// firstPause is the first pause of WaitPolling: short, for requests that
// are about to complete.
const firstPause = 5 * time.Microsecond

// WaitPolling waits for r by testing it with pauses that double up to
// maxPause, sleeping in between. A rank that waits long (for slower ranks,
// for a peer program, for learners that train) then leaves the cores to
// the processes that work, where MPI's blocking calls would spin in its
// progress loop; the price is up to maxPause of delay on completion.
func (r *Request) WaitPolling(maxPause time.Duration) error {
	pause := min(firstPause, maxPause)
	for {
		done, err := r.Test()
		if err != nil || done {
			return err
		}
		time.Sleep(pause)
		pause = min(2*pause, maxPause)
	}
}

// BarrierSleeping is a barrier whose wait sleeps (WaitPolling): for ranks
// that may arrive far apart.
func (c *Comm) BarrierSleeping(maxPause time.Duration) error {
	r, err := c.Ibarrier()
	if err != nil {
		return err
	}
	return r.WaitPolling(maxPause)
}
