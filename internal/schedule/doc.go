// Package schedule is the pure part of a node reader's work: given an
// epoch's assignment (package assign), where every record's bytes are (its
// block), which node owns every block and which blocks the owners keep in
// their caches, it cuts the epoch into windows and says what each node does
// in a window: which of its blocks it must have in memory, which records it
// sends to which node and which it receives.
//
// # Overview
//
// A record reaches a learner by one of three ways: from storage, read by
// the node that owns its block; from that node's cache; or from a peer node
// that owns it, through the node readers' exchange. The owner always
// produces the record; a learner on another node receives it in the
// window's exchange, or, in the epoch after the one that fills the caches,
// in an early exchange during the fill (Early).
//
// Windows are groups of consecutive rounds. Every node computes the same
// cut, because the cut bounds the shared memory of every node at once: a
// window is closed before any node would need more than the slot (bytes of
// arena per window) for the records it receives, the blocks it reads into
// its arena and the keys and labels of its learners' records. The stagger
// turns and the exchange collectives follow the windows, so all node
// readers must agree on them. In the epoch that fills the caches a window
// also holds only rounds that the reads make ready at about the same time
// (ReadyCut): its batches wait for all of it.
//
// A Cache says where every block a node keeps lies in that node's cache:
// the blocks are read in fill spans (the planner's coalesced reads) in a
// fixed order, the spans are laid out one after another, and the cache
// holds the leading spans that fit its capacity. Every node can compute
// every other node's cache the same way, which the window cut needs.
//
// # Invariants
//
//   - Windows cover the rounds from the first asked for to the last, in
//     order, each with at least one round.
//   - For every window and every pair of nodes (s, d), what s's Work lists
//     to send to d equals, in order, what d's Work lists to receive from s.
//   - A cached block lies inside its owner's capacity.
package schedule
