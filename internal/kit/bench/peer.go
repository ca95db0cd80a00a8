package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/lmdbio/lmdbio/internal/kit/schema"
)

// PeerLine is what one peer process reports: its share of the dataset.
// Times count from the start of the peer's process (see ProcessAge), or
// after FromReady from the end of its start-up.
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
	Epochs         []PeerEpoch
}

// PeerEpoch is one epoch as a peer reports it (schema.PeerEpoch).
type PeerEpoch = schema.PeerEpoch

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
		var raw schema.PeerReport
		if err := json.Unmarshal(line, &raw); err != nil {
			return PeerLine{}, fmt.Errorf("bench: peer result %.80q: %w", line, err)
		}
		if raw.Consumer == nil || raw.Records == nil || raw.Bytes == nil || raw.Seconds == nil {
			return PeerLine{}, fmt.Errorf("bench: peer result %.80q: want consumer, records, bytes and seconds: %w", line, ErrFormat)
		}
		l := PeerLine{Consumer: *raw.Consumer, Records: *raw.Records, Bytes: *raw.Bytes, Seconds: *raw.Seconds,
			FirstBatch: raw.FirstBatch, Startup: raw.Startup, ProcessStartup: raw.ProcessStartup, Loop: raw.Loop,
			Index: raw.Index, Total: raw.Total, Epochs: raw.Epochs}
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
		check := []float64{float64(l.Records), float64(l.Bytes), l.Seconds, l.FirstBatch, l.Startup,
			l.ProcessStartup, l.Loop, l.Index, l.Total}
		for _, e := range l.Epochs {
			check = append(check, float64(e.Epoch), float64(e.Records), float64(e.Bytes), e.Seconds, e.End, e.Stall, float64(e.StorageBytes))
		}
		for _, v := range check {
			if v < 0 {
				return PeerLine{}, fmt.Errorf("bench: peer result %.80q: negative count or time: %w", line, ErrFormat)
			}
		}
		return l, nil
	}
	return PeerLine{}, fmt.Errorf("bench: peer printed no JSON result line: %w", ErrFormat)
}

// FromReady moves the line's times to count from the end of its process
// start-up (interpreter and imports; for a peer that launches its own job,
// that job's launch too) instead of the process start: the part a training
// job pays whatever loader it uses, left out of the window as lmdbio's MPI
// start-up is. ProcessStartup keeps the time moved.
func (l PeerLine) FromReady() PeerLine {
	d := l.ProcessStartup
	shift := func(v float64) float64 { return max(0, v-d) }
	l.Seconds, l.FirstBatch, l.Startup, l.Total = shift(l.Seconds), shift(l.FirstBatch), shift(l.Startup), shift(l.Total)
	l.Epochs = append([]PeerEpoch(nil), l.Epochs...)
	for i := range l.Epochs {
		l.Epochs[i].End = shift(l.Epochs[i].End)
	}
	return l
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
		for i, e := range l.Epochs {
			if i == len(t.Epochs) {
				t.Epochs = append(t.Epochs, PeerEpoch{Epoch: e.Epoch})
			}
			s := &t.Epochs[i]
			s.Records += e.Records
			s.Bytes += e.Bytes
			s.StorageBytes += e.StorageBytes
			s.Seconds, s.End, s.Stall = max(s.Seconds, e.Seconds), max(s.End, e.End), max(s.Stall, e.Stall)
		}
	}
	return t
}

// EpochCount is the number of epochs the peer read: those it reported, or
// one.
func (l PeerLine) EpochCount() int { return max(len(l.Epochs), 1) }
