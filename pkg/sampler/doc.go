// Package sampler draws the order in which an epoch visits a dataset's
// records. It is pure: no MPI, no I/O; every function is a function of its
// arguments only, so every rank computes the same order without talking to
// the others, and a resumed job computes the order it left.
//
// # Overview
//
// Records are visited by position: position p is the p-th record in file
// order (by the offset of its bytes in the dataset file), so consecutive
// positions are neighbours on storage. Five shuffles are offered:
//
//   - None: the order of the population the caller gives, unshuffled. The
//     loader gives the records' key order (LMDB's cursor order), so that a
//     run compares with a reader that walks the cursor.
//   - File: the file's order, the positions as they are.
//   - Chunk (DIESEL): the positions are cut into chunks of consecutive
//     records (about Cut's target bytes of values each, the loader's
//     Options.ChunkBytes, cut only between blocks,
//     their number rounded to whole windows); the chunks are dealt into
//     windows of ChunkWindow chunks, each window taking one chunk from each
//     of ChunkWindow equal stretches of the file, the windows are visited
//     in a random order and the positions inside every window are
//     permuted. A window is a few long sequential reads, and nodes that own
//     contiguous shares of the file own equal parts of it (see
//     ChunkWindows).
//   - Global: a uniform random permutation of all positions.
//   - Local: each node permutes its own share (what DALI does); the shares
//     are the caller's, so this order depends on the world.
//
// The order of None, File, Chunk and Global depends on (seed, epoch, the number
// of records, the chunk cuts and the options) only, never on the number of
// ranks or nodes. Chunk and Global are cut into global batches as they are
// (only which learner receives a record depends on the world); None, File
// and Local are served node by node, each node its own share (see package
// assign), so their global batches depend on the nodes.
//
// The generator is SplitMix64 with Lemire's unbiased bounded integers,
// written out here rather than taken from math/rand, so that an order is the
// same with every Go release and a saved position stays meaningful.
//
// # Invariants
//
//   - Every order is a permutation of its input positions.
//   - The same arguments give the same order; another seed or another epoch
//     gives, with overwhelming probability, another order.
package sampler
