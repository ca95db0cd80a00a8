package sampler

import "math"

// Cut splits positions 0..n-1 into chunks of about target bytes each,
// cutting only where a new block starts so a block is never split between
// chunks. Where there are at least window chunks, their number is rounded
// to a whole number of windows (ChunkWindows deals one chunk of every
// stretch of the file to each window, which is even only then): the chunks
// are then between 3/4 and 3/2 of target, closer the more windows there
// are. bytes(p) is the
// value length of position p and blockStart(p) reports whether position p
// begins a block. The result lists the chunk boundaries: 0, ..., n. A
// target <= 0 makes one chunk per block.
func Cut(n int, target int64, window int, bytes func(p int) int64, blockStart func(p int) bool) []int32 {
	cuts := []int32{0}
	var total int64
	for p := range n {
		total += bytes(p)
	}
	chunks := 1.0
	if target > 0 {
		chunks = max(1, math.Round(float64(total)/float64(target)))
		if w := float64(max(window, 1)); chunks >= w {
			chunks = w * math.Round(chunks/w)
		}
	}
	var acc int64
	for p := range n {
		// Cut before p once the bytes before it reach the next cut's share.
		if p > 0 && blockStart(p) && (target <= 0 || float64(acc) >= float64(len(cuts))*float64(total)/chunks) {
			cuts = append(cuts, int32(p))
		}
		acc += bytes(p)
	}
	return append(cuts, int32(n))
}
