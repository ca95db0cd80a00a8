package bench

import (
	"fmt"

	"github.com/lmdbio/lmdbio/internal/kit/schema"
)

// The lines the bench prints are declared once, in package schema, which
// the report and the model read too; these names keep the writer's code
// short.
type (
	Result       = schema.Result
	Limit        = schema.Limit
	Peer         = schema.Peer
	Epoch        = schema.Epoch
	EpochFigures = schema.EpochFigures
	AUSearch     = schema.AUSearch
	Summary      = schema.Summary
	Ratio        = schema.Ratio
)

// The "type" of every line.
const (
	TypeResult   = schema.TypeResult
	TypeLimit    = schema.TypeLimit
	TypePeer     = schema.TypePeer
	TypeAUSearch = schema.TypeAUSearch
	TypeSummary  = schema.TypeSummary
	TypeRatio    = schema.TypeRatio
	TypeEpoch    = schema.TypeEpoch
)

// DigestSum is the digest summed over the samples of one measurement: what
// lmdbio digest prints for the records they delivered (FormatDigest).
func DigestSum(samples []RankSample) uint64 {
	var d uint64
	for _, s := range samples {
		d += s.Digest
	}
	return d
}

// FormatDigest prints a digest sum as lmdbio digest does: 16 hex digits.
func FormatDigest(d uint64) string { return fmt.Sprintf("%016x", d) }
