package schedule

import "github.com/lmdbio/lmdbio/pkg/assign"

// Layout is what the schedule knows of a run's records and blocks. Records
// are numbered by position (file order); blocks by their number in the
// source. The slices are shared, not copied: do not modify them.
type Layout struct {
	Nodes int
	// Local is set when every node produces what its own learners need
	// (the shuffles that keep to node shares): nothing crosses between
	// nodes, and a node reads a block another node owns (a share's edge,
	// padding) itself, into its arena.
	Local bool

	PosBlock []int32 // block of each position
	PosBytes []int64 // value bytes of each position
	PosMeta  []int64 // key and label bytes of each position

	BlockCost   []int64 // arena bytes a block takes when read into the arena, alignment included
	BlockOwner  []int32 // node that owns each block
	BlockCached []bool  // whether the owner keeps the block in its cache
	// BlockRead numbers the cache's fill read that loads each cached block
	// (blocks of one read arrive together), per node in fill order, after
	// every lower-numbered node's; nil, or -1 for a block, when blocks are
	// read one by one. Only ReadyCut uses it.
	BlockRead []int32
}

// Owner returns the node owning position p's block.
func (l *Layout) Owner(p int32) int { return int(l.BlockOwner[l.PosBlock[p]]) }

// producer returns the node that produces position p for a learner of
// node d.
func (l *Layout) producer(p int32, d int) int {
	if l.Local {
		return d
	}
	return l.Owner(p)
}

// Owners is Owner as an assign.Owners.
func (l *Layout) Owners() assign.Owners { return l.Owner }

// Window is the rounds [First, End) of an epoch.
type Window struct{ First, End int }

// Rounds is the number of rounds in the window.
func (w Window) Rounds() int { return w.End - w.First }
