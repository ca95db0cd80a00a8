// Package loader is lmdbio's Go API: a learner opens a dataset and asks for
// its next batch.
//
// # Overview
//
// Open is collective over the job's world communicator: the ranks check
// that they were given the same path and options, rank 0 describes the
// dataset (an LMDB index, loaded or built; an HDF5 layout, from libhdf5)
// and sends it to the node leaders. Each node leader (local rank 0) is the
// node's reader: it loads its node's blocks from storage in large
// coalesced spans, exchanges records with the other node readers, and
// hands every learner of its node a batch descriptor through a Unix socket.
// Next returns zero-copy views into shared memory. Every rank, the leader
// included, is a learner; Serve and Attach make node readers for learners
// that are not MPI ranks (lmdbio run --agent).
//
// The order of every epoch comes from package sampler (Options.Shuffle):
// the file's order, shuffled chunks of the file, a global permutation, or
// each node's own share shuffled. Who gets which records comes from package
// assign, with locality for the global orders (Options.Locality): learners
// first take the records their own node owns. Every node owns a contiguous
// range of the file; the run's plan (plan.go) says which, and package
// schedule cuts each epoch into windows every node cuts alike, and says what
// each node loads, sends and receives in a window. Records reach a learner
// from storage, from the node's cache or from another node (internal/exchange;
// early.go sends the next epochs' crossing records while the caches fill).
//
// Where a learner's values live:
//
//   - With views (Options.Views; by default for a single epoch or without a
//     cache, where safe: stored-as-is blocks, no O_DIRECT, a snapshot that
//     cannot change), learners read values through a read-only mapping of
//     the data file; the node reader only brings the spans into the page
//     cache before the batch goes out, with large reads, and skips what the
//     page cache already holds. The page cache is then the node's cache.
//   - Otherwise values are read into shared memory: blocks the node keeps
//     go to the node cache (Options.Cache; never evicted, so epochs after
//     the first read nothing the cache holds), the others to the arena,
//     whose windows are placed as low as they fit and reused as learners
//     release their batches.
//   - Records owned by another node arrive in the arena through the window's
//     exchange, written there with pwrite (see internal/exchange).
//
// Inside the node reader (leader.go, run.go) the pipeline is a producer
// (producer.go), chosen once: indexProducer for the index modes (plan,
// cache, exchange; the pure layout of a window is layout.go, how blocks
// reach memory is a blockLoader in blocks.go) or cursorProducer for the
// cursor modes (produce_cursor.go). Reads complete through a type per kind
// (reads.go, staged.go, resident.go). A later stage, such as decoding and
// augmenting images, wraps a producer.
//
// The Mode selects how much of the machinery runs, reproducing LMDBIO's
// stacked optimisations one on top of the other: lmdb (every rank reads
// with liblmdb's cursor over its own mmap, as Caffe-MPI does), +lmm (one
// reader per node, shared memory), +dio (explicit pread instead of page
// faults), +prov (the index says where records are: no cursor walk), +coal
// (several batches per read), +stag (node readers take turns on storage).
// Shuffles, the cache, the exchange, views and HDF5 need +prov.
//
// With Options.Prep, a prep stage (prepstage.go) runs in each learner's
// process, not in the node reader: a goroutine takes the raw batches (the
// views above), a pool of PrepThreads goroutines (by default the node's
// cores shared among its learners) decodes and augments every record of a
// batch with internal/prep into one contiguous tensor, and up to Prefetch
// prepped batches wait ahead of Next. The raw batch is released, by the
// next raw Next, only once all its records are prepped. It sits there
// because the raw views are already in the learner's address space (no
// copy or second handoff), the output is memory the C and Python bindings
// wrap without a copy, and the node reader's loop keeps its one job, so
// the raw path and its reads are unchanged; docs/decisions/0016-prep-stage.md
// says more. Memory: (Prefetch+1) x Batch x C x H x W x the element's
// bytes per learner.
//
// State returns where a run is; Options.Resume continues it, also with
// another number of ranks, as long as the global batch size is the same.
//
// # Invariants
//
//   - Every learner gets the same number of batches per epoch.
//   - With Remainder Keep, every record is delivered exactly once per epoch;
//     the default, Pad, never leaves one out.
//   - Chunk and Global orders, and so the global batches, are the same for
//     every split of the learners into nodes; locality changes only who gets
//     a record, never a global batch's set.
//   - The bytes of a Batch stay valid until the learner's next call to Next
//     or Close; shared memory is reused only after the learner released it.
//   - Bytes delivered are those of the snapshot the index describes, or the
//     run fails: never other bytes.
//   - With Prep, a record's sample depends only on (Seed, epoch, record),
//     never on the thread, rank, node or world size that preps it.
//   - A failure on any rank of a node reaches the other ranks of the node as
//     an error from Next, never as a hang.
package loader
