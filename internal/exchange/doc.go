// Package exchange moves records between the node readers: in each window
// in which records cross between nodes, every node sends each record it
// owns to the node whose learner gets it.
//
// # Overview
//
// An exchange (Op) is an all-to-all of variable sizes. The node reader lays
// it out — by destination, the values to send and what must finish before
// each may be read; by source, the lengths it receives and the region they
// land in — and puts it on the Exchanger's Queue; Run performs the queued
// exchanges one after the other, in the same order on every node, and
// finishes each Op, which the window's batches wait for (Op.Wait).
//
// An exchange is made of non-blocking point-to-point messages on a
// Transport (MPI_Isend and MPI_Irecv on the node readers' own communicator,
// OverMPI), rather than MPI_Ialltoallv: several goroutines use MPI at once
// in a node reader, and the collective engines of MPI libraries are the
// least tested under MPI_THREAD_MULTIPLE. A node's stream for a peer — its
// control word (ControlBytes), then its values one after the other — is
// cut into messages of at most a piece (pieceSize) the same way on both
// ends (cutter): a value of 16 KiB or more travels alone, in pieces, sent
// from where it lies; smaller ones are packed into the buffers of a send
// ring. The receiver posts a receive for exactly each message it will get
// (inbox), into the region or into a buffer of its own that it writes into
// the region's file with pwrite.
//
// The control word says whether its sender stops after this exchange
// (AnnounceStop): once one does, every node reader stops after that same
// exchange (Stopped, ErrStopped). A node reader that fails tells the others
// (Notify), so that none waits for it in an exchange it will not take part
// in: their next wait on a peer fails with ErrNodeFailed.
//
// The package exchangetest has an in-process Transport that runs several
// node readers in one process, for tests without mpirun.
//
// # Concurrency
//
// Run and the exchanges it performs use one goroutine, which polls its
// requests (poll): back to back while messages move, since a large message
// moves only while both ends call into MPI, and with growing sleeps while
// none completes, so that a node waiting long for slower peers leaves the
// cores to the ranks that work. Queue, AnnounceStop, Stopped, Dropped and
// SendsLetGo may be used from any goroutine; Notify and Close once Run has
// returned. Op.Wait may be called from any goroutine; the Parts' Need are
// waited for on Run's goroutine.
//
// # Invariants
//
//   - Every node queues the same exchanges in the same order, and what node
//     a sends node b in an exchange has the lengths b expects from a
//     (Op.RecvLens), in the same order. Both ends then cut a pair's stream
//     alike, so every receive matches exactly the message it is posted for.
//   - Every peer with bytes left has a receive posted, so a sender waiting
//     for a message to go never waits for a receive nobody posts; at most
//     16 packed and 64 direct messages are in flight from a node at once.
//   - A node sends itself nothing: its own part of the receive region is
//     its control word alone.
//   - When Op.Wait returns nil, every byte of the receive region is in place
//     and no send of the exchange reads its values any more.
//   - An exchange that fails is dropped: its receives are cancelled and its
//     sends let go of (Dropped). What they were sent from, and the
//     transport, must then stay as they are until the process ends; Close
//     keeps the exchanger's buffers then.
//   - After a stop or a failure every later exchange finishes with it.
package exchange
