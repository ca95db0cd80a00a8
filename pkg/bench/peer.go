package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// PeerLine is what one peer process reports: its share of the dataset.
type PeerLine struct {
	Records    int64
	Bytes      int64
	Digest     uint64
	Seconds    float64 // the epoch loop, as the peer timed it
	FirstBatch float64 // loop start to first batch
	Startup    float64 // script start to first batch (0 if not reported)
	Index      float64 // listing the keys before the loop (torch; 0 if not reported)
	Total      float64 // script start to the result line (0 if not reported)
}

// ParsePeerLine finds the peer's result in its standard output: the last
// line that is a JSON object. It needs records, bytes, digest (16 hex
// digits) and seconds; first_batch_s, startup_s, index_s and total_s are
// optional.
func ParsePeerLine(out []byte) (PeerLine, error) {
	lines := bytes.Split(out, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		line := bytes.TrimSpace(lines[i])
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var raw struct {
			Records    *int64   `json:"records"`
			Bytes      *int64   `json:"bytes"`
			Digest     *string  `json:"digest"`
			Seconds    *float64 `json:"seconds"`
			FirstBatch float64  `json:"first_batch_s"`
			Startup    float64  `json:"startup_s"`
			Index      float64  `json:"index_s"`
			Total      float64  `json:"total_s"`
		}
		if err := json.Unmarshal(line, &raw); err != nil {
			return PeerLine{}, fmt.Errorf("bench: peer result %.80q: %w", line, err)
		}
		if raw.Records == nil || raw.Bytes == nil || raw.Digest == nil || raw.Seconds == nil {
			return PeerLine{}, fmt.Errorf("bench: peer result %.80q: want records, bytes, digest and seconds: %w", line, ErrFormat)
		}
		d, err := strconv.ParseUint(*raw.Digest, 16, 64)
		if err != nil || len(*raw.Digest) == 0 || len(*raw.Digest) > 16 {
			return PeerLine{}, fmt.Errorf("bench: peer result: digest %q: %w", *raw.Digest, ErrFormat)
		}
		if *raw.Records < 0 || *raw.Bytes < 0 || *raw.Seconds < 0 || raw.FirstBatch < 0 || raw.Startup < 0 || raw.Index < 0 || raw.Total < 0 {
			return PeerLine{}, fmt.Errorf("bench: peer result %.80q: negative count or time: %w", line, ErrFormat)
		}
		return PeerLine{Records: *raw.Records, Bytes: *raw.Bytes, Digest: d, Seconds: *raw.Seconds,
			FirstBatch: raw.FirstBatch, Startup: raw.Startup, Index: raw.Index, Total: raw.Total}, nil
	}
	return PeerLine{}, fmt.Errorf("bench: peer printed no JSON result line: %w", ErrFormat)
}

// SumPeers adds up the shares of a peer that ran as several processes at
// once: counts and digests add, times are the slowest process's.
func SumPeers(lines []PeerLine) PeerLine {
	var t PeerLine
	for _, l := range lines {
		t.Records += l.Records
		t.Bytes += l.Bytes
		t.Digest += l.Digest
		t.Seconds = max(t.Seconds, l.Seconds)
		t.FirstBatch = max(t.FirstBatch, l.FirstBatch)
		t.Startup = max(t.Startup, l.Startup)
		t.Index = max(t.Index, l.Index)
		t.Total = max(t.Total, l.Total)
	}
	return t
}
