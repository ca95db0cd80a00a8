package bench

import (
	"errors"
	"fmt"
)

// ErrMismatch marks contenders that did not deliver the same data: one of
// them read something wrong.
var ErrMismatch = errors.New("contenders delivered different data")

// Delivery is what one contender delivered over all its epochs.
type Delivery struct {
	Name      string
	Epochs    int
	Records   int64
	Bytes     int64
	Digest    uint64
	HasDigest bool // the digest is known (consumer sha256, or a peer)
}

// Agreement checks that every contender delivered the same records, bytes
// and, where known, the same digest per epoch as the first one did. The zero
// value is ready to use.
type Agreement struct {
	ref, digestRef *Delivery
}

// Check compares d with what earlier contenders delivered, and returns an
// error wrapping ErrMismatch if it differs. Counts are compared per epoch;
// digests (sums modulo 2^64, which cannot be divided by the epoch count) are
// compared as d.Digest*ref.Epochs == ref.Digest*d.Epochs.
func (a *Agreement) Check(d Delivery) error {
	if d.Epochs < 1 {
		panic("bench: Agreement.Check with fewer than one epoch")
	}
	if a.ref == nil {
		a.ref = &d
	} else if r := a.ref; d.Records*int64(r.Epochs) != r.Records*int64(d.Epochs) || d.Bytes*int64(r.Epochs) != r.Bytes*int64(d.Epochs) {
		return fmt.Errorf("%s delivered %d records and %d bytes in %d epochs, %s %d records and %d bytes in %d: %w",
			d.Name, d.Records, d.Bytes, d.Epochs, r.Name, r.Records, r.Bytes, r.Epochs, ErrMismatch)
	}
	if !d.HasDigest {
		return nil
	}
	if a.digestRef == nil {
		a.digestRef = &d
		return nil
	}
	if r := a.digestRef; d.Digest*uint64(r.Epochs) != r.Digest*uint64(d.Epochs) {
		return fmt.Errorf("%s delivered digest %s in %d epochs, %s digest %s in %d: %w",
			d.Name, FormatDigest(d.Digest), d.Epochs, r.Name, FormatDigest(r.Digest), r.Epochs, ErrMismatch)
	}
	return nil
}
