package emu

import (
	"sync"
	"time"
)

// Bucket is a token bucket over bytes: it refills at Rate bytes per second up
// to Burst bytes, and a request for n bytes is granted when the bucket has
// paid for them. All requests of a mount share one Bucket, so together they
// never get more than the configured aggregate bandwidth.
//
// Reserve deducts the tokens at once, letting the balance go negative, and
// tells the caller how long to wait. Requests are therefore served in the
// order they reserved (first come, first served), none is starved, and a
// request larger than Burst simply waits longer. Reserve takes the current
// time as an argument so that tests can drive it with a fake clock.
//
// A Bucket is safe for concurrent use.
type Bucket struct {
	rate  float64 // bytes per second, > 0
	burst float64 // bytes

	mu     sync.Mutex
	tokens float64   // may be negative: bytes promised to waiting requests
	last   time.Time // when tokens was last brought up to date
}

// NewBucket returns a full bucket. It panics if rate or burst is not
// positive: that is a caller's mistake (an unlimited mount has no Bucket).
func NewBucket(rate float64, burst int64, now time.Time) *Bucket {
	if rate <= 0 || burst <= 0 {
		panic("emu: NewBucket needs a positive rate and burst")
	}
	return &Bucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: now}
}

// Rate returns the refill rate in bytes per second.
func (b *Bucket) Rate() float64 { return b.rate }

// Reserve takes n bytes' worth of tokens at time now and returns how long the
// caller must wait before the bytes count as sent. A time earlier than the
// previous call (clocks of concurrent callers read in a different order than
// they lock) is treated as the previous time.
func (b *Bucket) Reserve(now time.Time, n int64) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.After(b.last) {
		b.tokens += now.Sub(b.last).Seconds() * b.rate
		if b.tokens > b.burst {
			b.tokens = b.burst
		}
		b.last = now
	}
	b.tokens -= float64(n)
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.rate * float64(time.Second))
}
