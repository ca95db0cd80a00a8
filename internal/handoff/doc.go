// Package handoff hands batch descriptors from a node's reader (the node
// leader) to the learners on the same node.
//
// The package was called ring: its error messages still begin with
// "ring:", as users and their scripts know them.
//
// # Overview
//
// The data never travels through the handoff: the node leader has already
// read it into a shared-memory arena, so a message only says where each record of a
// batch lies in that arena (a few dozen bytes per record). The learner answers
// with Release once it is done with the batch, which tells the leader that the
// arena bytes may be reused; that answer is the pipeline's backpressure.
//
// The transport is one Unix domain stream socket per learner, named in Linux's
// abstract namespace ("@lmdbio.<job>.<node>.<pid>", see SocketName). Abstract
// names leave no file behind, not even after SIGKILL, and stream sockets give
// two properties a shared-memory queue would have to rebuild by hand: a learner
// waiting for its next batch sleeps in read(2) instead of spinning, and a peer
// that dies is noticed at once (end of file, EPIPE) instead of being waited for
// forever.
//
// The node leader is itself local rank 0, and it connects to its own Server
// through the same socket like every other learner, so there is one code path.
//
// # Wire format
//
// Each message is one frame: a little-endian uint32 length n, then n bytes made
// of a type byte and a payload (see codec.go). Decode checks every length
// against the frame and the bounds MaxFrameSize, MaxItems and MaxFailMsg, and
// reports malformed bytes as ErrCorrupt and a message that has no business on
// the connection as ErrProtocol.
//
// # Concurrency
//
// Server.Send may be called from several goroutines at once, also for the same
// learner (a mutex per connection keeps frames whole). Releases and Errors are
// fed by one goroutine per connection. A Client belongs to one goroutine.
//
// # Invariants
//
//   - A learner's connection ends with Bye when the learner closes it on
//     purpose; any other end is reported on Server.Errors naming the learner's
//     local rank and pid.
//   - A learner never waits on a dead node reader: end of file, a Fail message
//     or ctx cancellation end Client.Recv.
package handoff
