package prep

import "math/bits"

// Sample names one preparation of one record: the run's seed, the epoch
// and the record number in the dataset. Every random choice made for it is
// a function of these alone (and of the step of the spec that makes it).
type Sample struct {
	Seed   uint64
	Epoch  int
	Record int64
}

// stream is a counter-based random source: the n-th draw is a hash of
// (key, n), and the key a hash of (seed, epoch, record, step), so no state
// is shared between records or threads and the draws of a record do not
// depend on which others were prepared before it.
type stream struct {
	key, n uint64
}

// domain separates prep's draws from other users of the same seed.
const domain = 0x6c6d6462696f7072 // "lmdbiopr"

func newStream(s Sample, step int) stream {
	k := mix64(s.Seed ^ domain)
	k = mix64(k ^ uint64(s.Epoch))
	k = mix64(k ^ uint64(s.Record))
	k = mix64(k ^ uint64(step))
	return stream{key: k}
}

// mix64 is SplitMix64's finaliser, a bijection of 64-bit words whose every
// output bit depends on every input bit.
func mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *stream) uint64() uint64 {
	r.n++
	return mix64(r.key + r.n*0x9e3779b97f4a7c15)
}

// uniform returns a float64 uniform in [lo, hi).
func (r *stream) uniform(lo, hi float64) float64 {
	return lo + (hi-lo)*float64(r.uint64()>>11)*(1.0/(1<<53))
}

// intn returns an int uniform in [0, n), n > 0 (multiply-high: a bias of
// at most n/2^64, nothing for image sizes).
func (r *stream) intn(n int) int {
	hi, _ := bits.Mul64(r.uint64(), uint64(n))
	return int(hi)
}

// coin returns true with probability 1/2.
func (r *stream) coin() bool { return r.uint64()>>63 == 1 }
