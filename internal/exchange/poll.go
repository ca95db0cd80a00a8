package exchange

import (
	"runtime"
	"slices"
	"time"
)

// poll calls step until it says nothing is pending; step tests requests
// and says whether any completed. A large message moves only while both
// ends call into MPI (a shared-memory or TCP transport copies it fragment
// by fragment as the ranks poll), so the exchanger tests the requests back
// to back, yielding to other goroutines in between: pauses would slow every
// exchange to their pace, even short ones several times over
// (docs/decisions/0009-exchange-memory-and-polling.md). While none of the
// requests completes for spinFor, a peer is still reading its share, and
// the exchanger sleeps between tests, up to maxPause, leaving the cores to
// the ranks that work. It does not give up: a peer that died ends the whole
// job through the launcher.
func poll(step func() (moved, more bool, err error)) error {
	last, pause := time.Now(), time.Duration(0)
	for {
		moved, more, err := step()
		switch {
		case err != nil:
			return err
		case !more:
			return nil
		case moved:
			last, pause = time.Now(), 0
		case time.Since(last) < spinFor:
			runtime.Gosched()
		default:
			pause = min(max(2*pause, 10*time.Microsecond), maxPause)
			time.Sleep(pause)
		}
	}
}

// testAll tests reqs once each and returns those still pending, and
// whether any completed.
func testAll(reqs []Request) (pending []Request, moved bool, err error) {
	for i := 0; i < len(reqs); {
		done, err := reqs[i].Test()
		switch {
		case err != nil:
			return reqs, moved, err
		case done:
			reqs, moved = slices.Delete(reqs, i, i+1), true
		default:
			i++
		}
	}
	return reqs, moved, nil
}

// spinFor and maxPause bound the exchanger's busy polling (see poll).
const (
	spinFor  = 20 * time.Millisecond
	maxPause = time.Millisecond
)
