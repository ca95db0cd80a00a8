package loader

import (
	"testing"

	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// TestCacheServes: a default cache is kept only where a record can come
// from it: a later epoch, or a shuffled epoch whose windows draw on blocks
// earlier windows loaded. A single epoch in the file's order (also the last
// epoch of a resumed run) has no use for one.
func TestCacheServes(t *testing.T) {
	for _, c := range []struct {
		shuffle    sampler.Shuffle
		epochsLeft int
		want       bool
	}{
		{sampler.None, 1, false},
		{sampler.None, 2, true},
		{sampler.None, 90, true},
		{sampler.Chunk, 1, true},
		{sampler.Global, 1, true},
		{sampler.Local, 1, true},
		{sampler.Global, 3, true},
	} {
		if got := cacheServes(c.shuffle, c.epochsLeft); got != c.want {
			t.Errorf("cacheServes(%v, %d) = %v, want %v", c.shuffle, c.epochsLeft, got, c.want)
		}
	}
}
