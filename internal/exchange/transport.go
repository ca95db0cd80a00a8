package exchange

// Transport carries the messages of an exchange among the node readers: the
// non-blocking point-to-point calls of MPI and nothing more. A message is
// matched to a receive by its source and tag; the messages of one pair with
// one tag are matched in the order they were sent, never overtaking each
// other (MPI's rule, which the cutting of a peer's stream relies on). A
// receive smaller than the message it matches is an error.
//
// Isend and Irecv may be called from several goroutines at once; a Request
// is used by the goroutine that made it.
type Transport interface {
	// Rank is this node reader's place in the group, from 0.
	Rank() int
	// Size is the number of node readers in the group.
	Size() int
	// Isend starts sending buf to peer with tag. buf must stay intact until
	// the request completes, or for as long as the process lives if it is
	// let go of (Request.Free).
	Isend(buf []byte, peer, tag int) (Request, error)
	// Irecv starts receiving a message of at most len(buf) bytes from peer
	// (or AnySource) with tag into buf, which must not be touched until the
	// request completes.
	Irecv(buf []byte, peer, tag int) (Request, error)
}

// Request is a send or a receive in flight.
type Request interface {
	// Test reports, without blocking, whether the request completed, and
	// how it ended once it did.
	Test() (bool, error)
	// Wait blocks until the request completes and returns what a receive
	// got.
	Wait() (Status, error)
	// Cancel withdraws a receive whose message will never come; a request
	// that completed is left as it is. Wait then returns at once.
	Cancel()
	// Free lets go of a send whose receiver may never take it: the
	// transport finishes or drops it on its own and nothing waits for it.
	Free()
}

// Status is what a receive got: the rank that sent it and its length.
type Status struct {
	Source int
	Count  int
}

// AnySource as the peer of Irecv matches a message from any node reader.
const AnySource = -1
