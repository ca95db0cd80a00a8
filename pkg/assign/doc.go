// Package assign decides which records every learner receives in an epoch.
//
// # Overview
//
// The sequential assignment keeps the database's own order, as LMDBIO and
// Caffe assume of a pre-shuffled dataset: every node takes one contiguous
// share of the records, and inside a node consecutive batches go round-robin
// to the node's learners, as Caffe's DataReader does. A node therefore reads
// its share front to back in large sequential spans.
//
// An epoch is a number of rounds; in every round each learner of every node
// gets exactly one batch, so all learners take the same number of steps (a
// learner that runs out early would hang a collective in training). How the
// batches that do not divide evenly are treated is the Remainder.
//
// The shuffling sampler of a later layer plugs in behind the same Plan
// interface.
//
// # Invariants
//
//   - Every learner gets Rounds batches.
//   - Keep: every record appears exactly once in the epoch; batches are full
//     except possibly the last ones, which may be short or empty.
//   - DropLast: batches are full; no record appears twice; fewer than
//     Batch*Learners records are left out.
//   - Pad: batches are full; every record appears at least once; the padding
//     repeats records from the start of the dataset.
package assign
