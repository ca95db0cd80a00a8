package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// PeerLine is what one peer process reports: its share of the dataset.
// Times count from the start of the peer's process (see ProcessAge), as
// lmdbio's results do.
type PeerLine struct {
	Consumer       string // "sha256" (the digest is known) or "touch"
	Records        int64
	Bytes          int64
	Digest         uint64  // consumer sha256 only
	Seconds        float64 // process start to the last record consumed
	FirstBatch     float64 // process start to the first batch
	Startup        float64 // process start to the start of the epoch loop
	ProcessStartup float64 // process start to the script's own start (interpreter, imports)
	Loop           float64 // the epoch loop alone
	Index          float64 // listing the keys before the loop (torch; 0 if not reported)
	Total          float64 // process start to the result line (0 if not reported)
}

// ParsePeerLine finds the peer's result in its standard output: the last
// line that is a JSON object. It needs consumer, records, bytes and seconds,
// and with consumer sha256 the digest (16 hex digits); the other times are
// optional.
func ParsePeerLine(out []byte) (PeerLine, error) {
	lines := bytes.Split(out, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		line := bytes.TrimSpace(lines[i])
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var raw struct {
			Consumer       *string  `json:"consumer"`
			Records        *int64   `json:"records"`
			Bytes          *int64   `json:"bytes"`
			Digest         string   `json:"digest"`
			Seconds        *float64 `json:"seconds"`
			FirstBatch     float64  `json:"first_batch_s"`
			Startup        float64  `json:"startup_s"`
			ProcessStartup float64  `json:"process_startup_s"`
			Loop           float64  `json:"loop_s"`
			Index          float64  `json:"index_s"`
			Total          float64  `json:"total_s"`
		}
		if err := json.Unmarshal(line, &raw); err != nil {
			return PeerLine{}, fmt.Errorf("bench: peer result %.80q: %w", line, err)
		}
		if raw.Consumer == nil || raw.Records == nil || raw.Bytes == nil || raw.Seconds == nil {
			return PeerLine{}, fmt.Errorf("bench: peer result %.80q: want consumer, records, bytes and seconds: %w", line, ErrFormat)
		}
		l := PeerLine{Consumer: *raw.Consumer, Records: *raw.Records, Bytes: *raw.Bytes, Seconds: *raw.Seconds,
			FirstBatch: raw.FirstBatch, Startup: raw.Startup, ProcessStartup: raw.ProcessStartup, Loop: raw.Loop,
			Index: raw.Index, Total: raw.Total}
		kind, err := ParseConsumer(l.Consumer)
		if err != nil {
			return PeerLine{}, fmt.Errorf("bench: peer result: %w: %w", err, ErrFormat)
		}
		if kind == SHA256 {
			d, err := strconv.ParseUint(raw.Digest, 16, 64)
			if err != nil || len(raw.Digest) == 0 || len(raw.Digest) > 16 {
				return PeerLine{}, fmt.Errorf("bench: peer result: digest %q: %w", raw.Digest, ErrFormat)
			}
			l.Digest = d
		}
		for _, v := range []float64{float64(l.Records), float64(l.Bytes), l.Seconds, l.FirstBatch, l.Startup,
			l.ProcessStartup, l.Loop, l.Index, l.Total} {
			if v < 0 {
				return PeerLine{}, fmt.Errorf("bench: peer result %.80q: negative count or time: %w", line, ErrFormat)
			}
		}
		return l, nil
	}
	return PeerLine{}, fmt.Errorf("bench: peer printed no JSON result line: %w", ErrFormat)
}

// SumPeers adds up the shares of a peer that ran as several processes at
// once: counts and digests add, times are the slowest process's.
func SumPeers(lines []PeerLine) PeerLine {
	var t PeerLine
	for _, l := range lines {
		t.Consumer = l.Consumer
		t.Records += l.Records
		t.Bytes += l.Bytes
		t.Digest += l.Digest
		t.Seconds = max(t.Seconds, l.Seconds)
		t.FirstBatch = max(t.FirstBatch, l.FirstBatch)
		t.Startup = max(t.Startup, l.Startup)
		t.ProcessStartup = max(t.ProcessStartup, l.ProcessStartup)
		t.Loop = max(t.Loop, l.Loop)
		t.Index = max(t.Index, l.Index)
		t.Total = max(t.Total, l.Total)
	}
	return t
}
