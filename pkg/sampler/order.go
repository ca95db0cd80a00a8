package sampler

import (
	"fmt"
	"math"
)

// Options configure the world-independent orders.
type Options struct {
	Shuffle Shuffle
	Seed    uint64
	// ChunkWindow is the number of consecutive chunks whose positions Chunk
	// permutes together; at least 1.
	ChunkWindow int
}

// Streams keep the generators of different uses apart.
const (
	streamGlobal = iota + 1
	streamChunks
	streamWindow
	streamLocal
)

// Order returns epoch's order of the positions 0..n-1 for None, Chunk and
// Global. cuts are the chunk boundaries for Chunk (see Cut): ascending, the
// first 0 and the last n. Local orders depend on the nodes' shares: use
// Permute for them. Order panics on Local and on cuts that do not fit n:
// both are mistakes of the caller.
func Order(o Options, epoch, n int, cuts []int32) []int32 {
	if n < 0 || n > math.MaxInt32 {
		panic(fmt.Sprintf("sampler: %d records", n))
	}
	switch o.Shuffle {
	case None:
		return identity(0, n)
	case Global:
		p := identity(0, n)
		newRNG(o.Seed, uint64(epoch), streamGlobal).permute(p)
		return p
	case Chunk:
		return chunkOrder(o, epoch, n, cuts)
	}
	panic(fmt.Sprintf("sampler: Order of %v", o.Shuffle))
}

// Permute returns a copy of share permuted for node in epoch: the Local
// shuffle of one node's share.
func Permute(seed uint64, epoch, node int, share []int32) []int32 {
	p := append([]int32(nil), share...)
	newRNG(seed, uint64(epoch), uint64(node), streamLocal).permute(p)
	return p
}

func identity(from, to int) []int32 {
	p := make([]int32, to-from)
	for i := range p {
		p[i] = int32(from + i)
	}
	return p
}

// chunkOrder permutes the chunks, lays their positions out in that order and
// permutes the positions inside every window of ChunkWindow chunks.
func chunkOrder(o Options, epoch, n int, cuts []int32) []int32 {
	if len(cuts) < 2 || cuts[0] != 0 || int(cuts[len(cuts)-1]) != n {
		panic(fmt.Sprintf("sampler: chunk cuts %v do not cover %d records", summary(cuts), n))
	}
	if o.ChunkWindow < 1 {
		panic(fmt.Sprintf("sampler: chunk window %d", o.ChunkWindow))
	}
	chunks := identity(0, len(cuts)-1)
	newRNG(o.Seed, uint64(epoch), streamChunks).permute(chunks)
	win := newRNG(o.Seed, uint64(epoch), streamWindow)
	p := make([]int32, 0, n)
	for first := 0; first < len(chunks); first += o.ChunkWindow {
		start := len(p)
		for _, c := range chunks[first:min(first+o.ChunkWindow, len(chunks))] {
			for q := cuts[c]; q < cuts[c+1]; q++ {
				p = append(p, q)
			}
		}
		win.permute(p[start:])
	}
	return p
}

// ChunkSequence returns the order in which epoch visits the chunks (chunk
// indices into cuts), as Order lays them out.
func ChunkSequence(o Options, epoch int, chunks int) []int32 {
	seq := identity(0, chunks)
	newRNG(o.Seed, uint64(epoch), streamChunks).permute(seq)
	return seq
}

func summary(cuts []int32) string {
	if len(cuts) <= 4 {
		return fmt.Sprint(cuts)
	}
	return fmt.Sprintf("[%d %d ... %d] (%d cuts)", cuts[0], cuts[1], cuts[len(cuts)-1], len(cuts))
}
