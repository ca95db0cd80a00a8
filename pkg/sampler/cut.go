package sampler

// Cut splits positions 0..n-1 into chunks of at least target bytes each
// (the last chunk may be smaller), cutting only where a new block starts so
// a block is never split between chunks. bytes(p) is the value length of
// position p and blockStart(p) reports whether position p begins a block.
// The result lists the chunk boundaries: 0, ..., n. A target <= 0 makes one
// chunk per block.
func Cut(n int, target int64, bytes func(p int) int64, blockStart func(p int) bool) []int32 {
	cuts := []int32{0}
	var acc int64
	for p := 0; p < n; p++ {
		if p > 0 && blockStart(p) && acc >= target {
			cuts = append(cuts, int32(p))
			acc = 0
		}
		acc += bytes(p)
	}
	if n > 0 {
		cuts = append(cuts, int32(n))
	} else {
		cuts = append(cuts, 0)
	}
	return cuts
}
