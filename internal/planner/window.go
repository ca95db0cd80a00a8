package planner

import "fmt"

// Windows groups consecutive batches into windows that are planned and read
// together, so that one plan covers enough bytes for coalescing to pay off
// (large reads, as LMDBIO's coalescing of several iterations into reads of
// 4 MiB or more).
//
// batchBytes[i] is the number of bytes batch i needs. Each window is a
// half-open range [first, last) of batch numbers; the windows cover all
// batches in order. A window closes as soon as its bytes reach target, so
// every window but the last holds at least target bytes and at least one
// batch; a target of zero or less gives one batch per window.
//
// Windows panics if a batch size is negative.
func Windows(batchBytes []int64, target int64) [][2]int {
	var out [][2]int
	first := 0
	var sum int64
	for i, b := range batchBytes {
		if b < 0 {
			panic(fmt.Sprintf("planner: batch %d has negative size %d", i, b))
		}
		sum += b
		if sum >= target {
			out = append(out, [2]int{first, i + 1})
			first, sum = i+1, 0
		}
	}
	if first < len(batchBytes) {
		out = append(out, [2]int{first, len(batchBytes)})
	}
	return out
}
