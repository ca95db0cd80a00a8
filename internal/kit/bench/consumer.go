package bench

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
)

// TouchStride is the distance between the bytes the touch consumer reads:
// one per page, so every page of a value is brought into the CPU's reach
// (faulted in, for mmapped views) at a tiny fraction of a hash's cost.
const TouchStride = 4096

// Touch reads the bytes of value the touch consumer reads and returns their
// sum: value[0], value[TouchStride], value[2*TouchStride], ... and the last
// byte. Consecutive reads are TouchStride bytes apart, so wherever the value
// starts in memory each lands in the page after the previous one's, and the
// last byte covers the page the stride stops short of: every page the value
// spans is read, whatever its alignment.
func Touch(value []byte) uint64 {
	if len(value) == 0 {
		return 0
	}
	var sum uint64
	for i := 0; i < len(value); i += TouchStride {
		sum += uint64(value[i])
	}
	return sum + uint64(value[len(value)-1])
}

// ConsumerKind says what a learner does with every record it receives.
type ConsumerKind int

const (
	// TouchPages reads one byte in every page of every value (see Touch).
	TouchPages ConsumerKind = iota
	// NoConsumer does nothing with the bytes (only counts them).
	NoConsumer
	// SHA256 hashes key || value, as lmdbio digest does, so the digest
	// proves every record was read exactly once.
	SHA256
)

// ParseConsumer reads a consumer name: none, touch or sha256.
func ParseConsumer(s string) (ConsumerKind, error) {
	switch s {
	case "touch":
		return TouchPages, nil
	case "none":
		return NoConsumer, nil
	case "sha256":
		return SHA256, nil
	}
	return 0, fmt.Errorf("consumer %q: want none, touch or sha256", s)
}

func (k ConsumerKind) String() string {
	switch k {
	case TouchPages:
		return "touch"
	case NoConsumer:
		return "none"
	case SHA256:
		return "sha256"
	}
	return fmt.Sprintf("ConsumerKind(%d)", int(k))
}

// Consumer does a learner's work on records and tallies them. It is used by
// one goroutine; the zero value is not usable, call NewConsumer.
type Consumer struct {
	kind    ConsumerKind
	Records int64
	Bytes   int64  // value bytes
	Digest  uint64 // sum of the digests of records (SHA256 only)
	Sink    uint64 // sum of touched bytes; kept so the reads cannot be optimised away
	h       hash.Hash
	sum     [sha256.Size]byte
}

// NewConsumer returns a consumer of the given kind with empty tallies.
func NewConsumer(kind ConsumerKind) *Consumer {
	c := &Consumer{kind: kind}
	if kind == SHA256 {
		c.h = sha256.New()
	}
	return c
}

// Consume does the consumer's work on one record.
func (c *Consumer) Consume(key, value []byte) {
	c.Records++
	c.Bytes += int64(len(value))
	switch c.kind {
	case TouchPages:
		c.Sink += Touch(value)
	case SHA256:
		c.h.Reset()
		c.h.Write(key)
		c.h.Write(value)
		c.Digest += RecordDigest(c.h.Sum(c.sum[:0]))
	}
}

// RecordDigest is a record's share of a dataset digest: the little-endian
// uint64 of the first 8 bytes of SHA-256(key || value).
func RecordDigest(sum []byte) uint64 { return binary.LittleEndian.Uint64(sum) }
