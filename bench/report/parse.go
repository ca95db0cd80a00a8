package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/lmdbio/lmdbio/internal/kit/schema"
)

// ErrBadInput is the class of every error about the content of an input
// file; callers test it with errors.Is to choose exit status 2.
var ErrBadInput = errors.New("bad input")

// LineError says which line of which input could not be used.
type LineError struct {
	File string
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

// Unwrap lets errors.Is see both the cause and ErrBadInput.
func (e *LineError) Unwrap() []error { return []error{e.Err, ErrBadInput} }

// maxLine bounds one input line; bench lines are a few hundred bytes, so a
// longer line means the file is not what we think it is.
const maxLine = 16 << 20

// Parse reads JSON lines from r into ds. name is the input's name for error
// messages; a non-empty label sets the storage of every record read,
// overriding a "storage" field. Blank lines are skipped; any other line
// must be a JSON object with a "type" field.
func Parse(r io.Reader, name, label string, ds *Dataset) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if err := parseLine(b, name, label, ds); err != nil {
			return &LineError{File: name, Line: line, Err: err}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &LineError{File: name, Line: line + 1, Err: fmt.Errorf("line longer than %d bytes", maxLine)}
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// parseLine decodes one non-blank line of input name and appends what it
// holds to ds.
func parseLine(b []byte, name, label string, ds *Dataset) error {
	if b[0] != '{' {
		return errors.New("not a JSON object")
	}
	var head struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return fmt.Errorf("bad JSON: %w", err)
	}
	if head.Type == nil {
		return errors.New(`no "type" field`)
	}
	switch *head.Type {
	case schema.TypeResult:
		return parseResult(b, name, label, ds)
	case schema.TypeLimit:
		return parseLimit(b, name, label, ds)
	case schema.TypePeer:
		return parsePeer(b, name, label, ds)
	case schema.TypeAUSearch:
		var a AUSearch
		if err := decode(b, &a); err != nil {
			return err
		}
		if a.Workload == "" {
			return errors.New(`au-search: needs "workload"`)
		}
		setLabel(&a.Storage, label)
		ds.AUSearches = append(ds.AUSearches, a)
	case schema.TypeEpoch:
		return parseEpoch(b, label, ds)
	case schema.TypeShuffleQuality:
		var q Quality
		if err := decode(b, &q); err != nil {
			return err
		}
		if q.Shuffle == "" || q.Records <= 0 {
			return errors.New(`shuffle-quality: needs "shuffle" and "records" > 0`)
		}
		ds.Qualities = append(ds.Qualities, q)
	case schema.TypeResidual:
		var r Residual
		if err := decode(b, &r); err != nil {
			return err
		}
		ds.Residuals = append(ds.Residuals, r)
	case schema.TypeFit:
		var f Fit
		if err := decode(b, &f); err != nil {
			return err
		}
		ds.Fits = append(ds.Fits, f)
	case schema.TypePrediction:
		var p Prediction
		if err := decode(b, &p); err != nil {
			return err
		}
		ds.Predictions = append(ds.Predictions, p)
	case "machine":
		var f map[string]any
		if err := json.Unmarshal(b, &f); err != nil {
			return fmt.Errorf("machine: %w", err)
		}
		delete(f, "type")
		m := Machine{Fields: f}
		if s, ok := f["storage"].(string); ok {
			m.Storage = s
			delete(f, "storage")
		}
		setLabel(&m.Storage, label)
		ds.Machines = append(ds.Machines, m)
	}
	return nil
}

// parseResult decodes a "result" line of input name into ds.
func parseResult(b []byte, name, label string, ds *Dataset) error {
	var r Result
	if err := decode(b, &r); err != nil {
		return err
	}
	if r.Synthetic {
		return errSynthetic
	}
	if err := checkResult(r); err != nil {
		return err
	}
	if r.Contender != "" {
		r.Mode = r.Contender
	}
	setLabel(&r.Storage, label)
	r.Run = name
	ds.Results = append(ds.Results, r)
	return nil
}

// parseLimit decodes a "limit" line of input name into ds.
func parseLimit(b []byte, name, label string, ds *Dataset) error {
	var l Limit
	if err := decode(b, &l); err != nil {
		return err
	}
	if l.Cache == "" || !finiteNonNeg(l.MBPerS) {
		return errors.New(`limit: needs "cache" and a plausible non-negative "mb_per_s"`)
	}
	if l.Probe == "" {
		// Runs before the limit probes read one stream of 16 MiB
		// requests, buffered and with O_DIRECT.
		l.Probe = legacyProbe(l.Direct)
		ds.note("limit lines without a probe come from runs that read one stream of 16 MiB requests: shown as " +
			legacyProbe(false) + " and " + legacyProbe(true))
	}
	if l.Hosts > 1 {
		l.Probe += fmt.Sprintf(" on %d hosts", l.Hosts)
	}
	setLabel(&l.Storage, label)
	l.Run = name
	ds.Limits = append(ds.Limits, l)
	return nil
}

// parsePeer decodes a "peer" line of input name into ds.
func parsePeer(b []byte, name, label string, ds *Dataset) error {
	var p Peer
	if err := decode(b, &p); err != nil {
		return err
	}
	if p.Peer == "" || p.Cache == "" || p.Ranks <= 0 || !finiteNonNeg(p.MBPerS) || !finiteNonNeg(p.FirstBatchMax) {
		return errors.New(`peer: needs "peer", "cache", "ranks" > 0 and plausible non-negative "mb_per_s" and "first_batch_s_max"`)
	}
	var synthetic struct {
		Synthetic bool `json:"synthetic"`
	}
	if json.Unmarshal(b, &synthetic) == nil && synthetic.Synthetic {
		return errSynthetic
	}
	if p.Consumer == "" {
		// The peer scripts hashed every record (sha256) before they
		// took a consumer; their lines did not say so.
		p.Consumer = "sha256"
		ds.note("peer lines without a consumer come from peer scripts that always hashed: shown as consumer sha256 " +
			"(their MB/s were timed over the epoch loop alone, without start-up)")
	}
	setLabel(&p.Storage, label)
	p.Run = name
	ds.Peers = append(ds.Peers, p)
	return nil
}

// parseEpoch decodes an "epoch" line into ds.
func parseEpoch(b []byte, label string, ds *Dataset) error {
	var e Epoch
	if err := decode(b, &e); err != nil {
		return err
	}
	if e.Contender == "" || e.Cache == "" || e.Ranks <= 0 || e.Epoch < 0 {
		return errors.New(`epoch: needs "contender", "cache", "ranks" > 0 and "epoch" >= 0`)
	}
	for _, v := range []float64{e.Seconds, e.MBPerS, e.CacheHitRate, e.ReadAmplification, e.StallS, e.DecodeMBPerS,
		float64(e.StorageBytes), float64(e.ExchangeBytes), float64(e.DecodedBytes)} {
		if !finiteNonNeg(v) {
			return fmt.Errorf("epoch: figure %g is negative or implausible", v)
		}
	}
	setLabel(&e.Storage, label)
	ds.Epochs = append(ds.Epochs, e)
	return nil
}

// errSynthetic refuses lines a model made up: a report shows measurements.
var errSynthetic = errors.New(`a "synthetic" line (made by lmdbio-bench model synth from known parameters), not a measurement`)

// legacyProbe is the probe of a limit line from before the probes: one
// stream, one 16 MiB request at a time.
func legacyProbe(direct bool) string {
	if direct {
		return "direct:1x1:16MiB"
	}
	return "buffered:1x1:16MiB"
}

// note records once how lines were read.
func (ds *Dataset) note(s string) {
	for _, n := range ds.Notes {
		if n == s {
			return
		}
	}
	ds.Notes = append(ds.Notes, s)
}

// decode unmarshals a whole line into v, naming the type on failure.
func decode(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("bad field: %w", err)
	}
	return nil
}

// checkResult rejects results no table could place.
func checkResult(r Result) error {
	switch {
	case r.Mode == "":
		return errors.New(`result: no "mode"`)
	case r.Ranks <= 0:
		return fmt.Errorf(`result: "ranks" is %d, want > 0`, r.Ranks)
	case r.Cache == "":
		return errors.New(`result: no "cache"`)
	}
	for _, v := range []float64{r.MBPerS, r.SamplesPerS, r.FirstBatchMin, r.FirstBatchMedian, r.FirstBatchMax} {
		if !finiteNonNeg(v) {
			return fmt.Errorf("result: rate or time %g is negative or implausible", v)
		}
	}
	return nil
}

// maxPlausible bounds rates and times: anything larger is a broken writer,
// and would overflow the arithmetic of medians and plot ranges.
const maxPlausible = 1e12

// finiteNonNeg reports whether v can be a measured rate or time.
func finiteNonNeg(v float64) bool { return v >= 0 && v < maxPlausible && !math.IsNaN(v) }

// setLabel applies a command-line label, which wins over the file's own
// "storage" field: the user knows which storage each file measured.
func setLabel(storage *string, label string) {
	if label != "" {
		*storage = label
	}
}
