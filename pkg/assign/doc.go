// Package assign decides which records every learner receives in an epoch:
// the global batches, and within each the share of every learner.
//
// # Overview
//
// It works on positions (see package sampler): position p is the p-th
// record in file order. An Epoch is a list of rounds; in every round each
// learner of every node gets exactly one batch, so all learners take the
// same number of steps (a learner that runs out early would hang a
// collective in training). The global batch of a round is the union of the
// learners' batches in that round.
//
// Three builders cover the shuffles:
//
//   - Sequential (shuffle none) keeps the file's order as LMDBIO and Caffe
//     assume of a pre-shuffled dataset: every node takes one contiguous
//     share, and inside a node consecutive batches go round-robin to the
//     node's learners, as Caffe's DataReader does. A node reads its share
//     front to back. With Keep the shares are proportional to the nodes'
//     learners, so that the nodes' reads end together; with Pad and
//     DropLast they are whole rounds, the last node's excepted.
//   - Local permutes every node's Sequential share (shuffle local).
//   - Ordered cuts a world-independent order (shuffle chunk or global) into
//     global batches of Batch x learners positions. With locality (Yang and
//     Cong, HiPC 2019) every node first takes the positions of the global
//     batch that it owns, up to what its learners need, and the surplus of
//     the others is moved to the nodes short of positions; the set of
//     positions in a global batch does not change, only who gets which.
//     Within a node the same rule shares the node's positions out to its
//     learners: each first takes those of its home range, its stretch of
//     what the node owns, so that a learner meets the same records of the
//     node's cache in every epoch.
//
// How the positions that do not fill a round are treated is the Remainder.
// Pad suits training (every step a full batch, as DistributedSampler with
// drop_last=False); Keep suits evaluation (every record counted once).
//
// # Invariants
//
//   - Every learner gets Rounds batches.
//   - Keep: every position appears exactly once in the epoch; batches are
//     full except possibly in the last round, where they are short and
//     their sizes differ by at most one across all learners, as the records
//     PyTorch's DistributedSampler does not pad (a learner's batch is empty
//     only when the round has fewer positions than learners). The last
//     round's set of positions is the same as if it were filled in order,
//     so a resume state's count of global batches means the same.
//   - DropLast: batches are full; no position appears twice; fewer than
//     Batch x learners positions are left out.
//   - Pad: batches are full; every position appears at least once; the
//     padding repeats positions from the start of the epoch's order (of the
//     node's share, for Sequential and Local).
//   - Ordered with and without locality gives every global batch the same
//     set of positions, and every learner the same batch size.
package assign
