package sampler

import (
	"fmt"
	"strings"
)

// Shuffle selects how an epoch's order is drawn.
type Shuffle int

// The shuffles. None is the zero value: no shuffle, the records' key order
// in the loader. File, the file's order, came later, and so comes last.
const (
	None Shuffle = iota
	Chunk
	Global
	Local
	File
)

var shuffleNames = [...]string{None: "none", File: "file", Chunk: "chunk", Global: "global", Local: "local"}

// ShuffleNames lists the names ParseShuffle accepts.
func ShuffleNames() []string { return append([]string(nil), shuffleNames[:]...) }

// ParseShuffle reads a shuffle's name.
func ParseShuffle(s string) (Shuffle, error) {
	for i, name := range shuffleNames {
		if s == name {
			return Shuffle(i), nil
		}
	}
	return 0, fmt.Errorf("shuffle %q: want one of %s", s, strings.Join(shuffleNames[:], ", "))
}

func (s Shuffle) String() string {
	if s < 0 || int(s) >= len(shuffleNames) {
		return fmt.Sprintf("Shuffle(%d)", int(s))
	}
	return shuffleNames[s]
}

// WorldIndependent reports whether an epoch's global batches are the same
// for every split of the learners into nodes (Chunk, Global): they are cut
// from one order that every node computes alike, and records move between
// nodes to reach their learners. With None and Local every node serves its
// own share of the file to its own learners (LMDBIO's way), so the global
// batches depend on the number of nodes.
func (s Shuffle) WorldIndependent() bool { return s == Chunk || s == Global }

// Random reports whether the order changes from epoch to epoch.
func (s Shuffle) Random() bool { return s != None && s != File }
