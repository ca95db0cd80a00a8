package sampler

import "math/bits"

// rng is SplitMix64 (Steele, Lea and Flood, 2014): one 64-bit word of state,
// a full period of 2^64, and output that passes BigCrush. The stream of a
// (seed, epoch, node) triple is fixed forever, which a saved resume state
// relies on.
type rng struct{ state uint64 }

const golden = 0x9e3779b97f4a7c15

// newRNG mixes the words into one seed, so nearby seeds and epochs give
// unrelated streams.
func newRNG(words ...uint64) *rng {
	r := &rng{state: 0x6a09e667f3bcc908}
	for _, w := range words {
		r.state ^= mix(w + golden)
		r.next()
	}
	return r
}

func (r *rng) next() uint64 {
	r.state += golden
	return mix(r.state)
}

func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// below returns a uniform integer in [0, n) by Lemire's multiply-and-reject
// method (no modulo bias). n must be positive.
func (r *rng) below(n uint64) uint64 {
	hi, lo := bits.Mul64(r.next(), n)
	if lo < n {
		threshold := -n % n
		for lo < threshold {
			hi, lo = bits.Mul64(r.next(), n)
		}
	}
	return hi
}

// permute shuffles p in place (Fisher-Yates): every permutation is equally
// likely.
func (r *rng) permute(p []int32) {
	r.shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
}

// shuffle puts n things in a uniformly random order (Fisher-Yates, from the
// last one down), swapping them with swap.
func (r *rng) shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, int(r.below(uint64(i)+1)))
	}
}
