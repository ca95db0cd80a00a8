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

// Order returns epoch's order of the positions 0..n-1 for None, File, Chunk
// and Global (None and File: the positions as they are). cuts are the chunk boundaries for Chunk (see Cut): ascending, the
// first 0 and the last n. Local orders depend on the nodes' shares: use
// Permute for them. Order panics on Local and on cuts that do not fit n:
// both are mistakes of the caller.
func Order(o Options, epoch, n int, cuts []int32) []int32 {
	if n < 0 || n > math.MaxInt32 {
		panic(fmt.Sprintf("sampler: %d records", n))
	}
	switch o.Shuffle {
	case None, File:
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

// chunkOrder lays the positions out window by window (see ChunkWindows)
// and permutes the positions inside every window.
func chunkOrder(o Options, epoch, n int, cuts []int32) []int32 {
	if len(cuts) < 2 || cuts[0] != 0 || int(cuts[len(cuts)-1]) != n {
		panic(fmt.Sprintf("sampler: chunk cuts %v do not cover %d records", summary(cuts), n))
	}
	win := newRNG(o.Seed, uint64(epoch), streamWindow)
	p := make([]int32, 0, n)
	for _, w := range ChunkWindows(o, epoch, len(cuts)-1) {
		start := len(p)
		for _, c := range w {
			for q := cuts[c]; q < cuts[c+1]; q++ {
				p = append(p, q)
			}
		}
		win.permute(p[start:])
	}
	return p
}

// ChunkWindows deals epoch's chunks (indices into the cuts) into windows of
// ChunkWindow chunks, in the order the epoch visits them. The file is split
// into ChunkWindow equal stretches of chunks (strata); every stratum's
// chunks are permuted and dealt out one per window, and the windows are
// visited in a random order. So every window holds one chunk from each
// stretch of the file: nodes that own contiguous shares of the file own
// equal parts of every window, read alike in it and keep its records at
// home when learners take their own node's records first. A uniform
// permutation of the chunks would give some windows mostly one node's
// chunks, that node reading alone and sending to all. When the strata
// differ in size by one chunk, their extra chunks form one shorter window,
// or, when they are at most half a window, join full windows one each.
func ChunkWindows(o Options, epoch int, chunks int) [][]int32 {
	if o.ChunkWindow < 1 {
		panic(fmt.Sprintf("sampler: chunk window %d", o.ChunkWindow))
	}
	if chunks < 0 {
		panic(fmt.Sprintf("sampler: %d chunks", chunks))
	}
	strata := min(o.ChunkWindow, max(chunks, 1))
	full := chunks / strata
	windows := make([][]int32, full, full+1)
	if chunks%strata != 0 {
		windows = append(windows, nil)
	}
	r := newRNG(o.Seed, uint64(epoch), streamChunks)
	for s := range strata {
		stratum := identity(s*chunks/strata, (s+1)*chunks/strata)
		r.permute(stratum)
		for j, c := range stratum {
			windows[j] = append(windows[j], c)
		}
	}
	if extra := len(windows) - full; extra == 1 && len(windows[full]) <= full && 2*len(windows[full]) <= strata {
		// A few extra chunks would make a short window of few owners: deal
		// them to full windows instead, one each.
		for i, c := range windows[full] {
			j := i + int(r.below(uint64(full-i)))
			windows[i], windows[j] = windows[j], windows[i]
			windows[i] = append(windows[i], c)
		}
		windows = windows[:full]
	}
	r.shuffle(len(windows), func(i, j int) { windows[i], windows[j] = windows[j], windows[i] }) // visit them in a random order
	return windows
}

// ChunkSequence returns the order in which epoch visits the chunks (chunk
// indices into cuts), as Order lays them out.
func ChunkSequence(o Options, epoch int, chunks int) []int32 {
	var seq []int32
	for _, w := range ChunkWindows(o, epoch, chunks) {
		seq = append(seq, w...)
	}
	return seq
}

func summary(cuts []int32) string {
	if len(cuts) <= 4 {
		return fmt.Sprint(cuts)
	}
	return fmt.Sprintf("[%d %d ... %d] (%d cuts)", cuts[0], cuts[1], cuts[len(cuts)-1], len(cuts))
}
