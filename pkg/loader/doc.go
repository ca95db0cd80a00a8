// Package loader is lmdbio's Go API: a learner opens a dataset and asks for
// its next batch.
//
// # Overview
//
// Open is collective over the job's world communicator. Rank 0 loads (or
// builds) the dataset's index and sends it to the node leaders; each node
// leader (local rank 0) then reads its node's share of the records from
// storage in large coalesced spans into a shared-memory arena, ahead of the
// learners by a few windows, and hands every learner of its node a batch
// descriptor through a Unix socket. Next returns zero-copy views into the
// arena. Every rank, the leader included, is a learner.
//
// The Mode selects how much of this machinery runs, reproducing LMDBIO's
// stacked optimisations one on top of the other: lmdb (every rank reads with
// liblmdb's cursor over its own mmap, as Caffe-MPI does), +lmm (one reader per
// node, shared memory), +dio (explicit pread instead of page faults), +prov
// (the index says where records are: no cursor walk), +coal (several batches
// per read), +stag (node readers take turns on storage).
//
// # Invariants
//
//   - Every learner gets the same number of batches per epoch.
//   - With Remainder Keep, every record is delivered exactly once per epoch.
//   - The bytes of a Batch stay valid until the learner's next call to Next
//     or Close; the arena space is reused only after the learner released it.
//   - A failure on any rank of a node reaches the other ranks of the node as
//     an error from Next, never as a hang.
package loader
