// Package exchangetest runs several node readers' exchanges in one process,
// for tests without mpirun.
//
// # Overview
//
// A Network is a group of in-process nodes; Node(r) is node r's
// exchange.Transport. A message goes from the sender's buffer straight
// into the receive that matches it, under one lock, as soon as both are
// posted.
//
// The network is stricter than most MPI libraries where strictness finds
// bugs: a send completes only once a receive took it (as MPI's rendezvous
// protocol for large messages does; MPI may complete a small send at
// once), so an exchange that waits for a send no peer has a receive
// posted for hangs here; a receive smaller than the message it matches
// fails, as MPI_ERR_TRUNCATE does. FailSend makes one of a node's sends
// fail, and Posted tells what receives a node left behind.
//
// # Concurrency
//
// Every method may be called from any goroutine. A Request is used by one
// goroutine at a time.
//
// # Invariants
//
//   - Messages from one node to another with one tag are received in the
//     order they were sent; a receive from AnySource takes the first
//     message sent to it that it matches.
//   - A send completes when, and only when, a receive took its bytes; a
//     send let go of (Free) may still be taken later.
//   - A cancelled receive never takes a message.
package exchangetest
