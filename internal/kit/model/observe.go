package model

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

// ErrInput marks lines of lmdbio-bench bench output the model cannot use.
var ErrInput = errors.New("bad bench line")

// Observation is one measured (or synthesised) run: its configuration and
// the seconds from the learners' process start to the last batch.
type Observation struct {
	Config
	Seconds   float64
	Synthetic bool   // made by Synthesize, not measured
	Source    string // file:line it came from
}

// Reading says what ReadObservations made of its input.
type Reading struct {
	Observations []Observation
	// Skipped counts lines of other types or states the model does not
	// fit: warm caches, peers, older lines without the loader's settings.
	Skipped map[string]int
}

// benchResult is a bench "result" line (schema.Result) as the model reads
// it: window_bytes is a pointer, to tell the lines of older runs, which did
// not record the loader's settings, from a window of 0.
type benchResult struct {
	schema.Result
	Window *float64 `json:"window_bytes"` // shadows Result.WindowBytes
}

// maxLine bounds one input line: bench lines are a few hundred bytes.
const maxLine = 1 << 20

// ReadObservations reads lmdbio-bench bench --json lines and keeps the cold-cache
// "result" lines as observations. walk is the dataset's WalkFraction, which
// the lines do not carry. Blank lines and lines of other types are skipped
// and counted; a result line that is malformed or implausible is an error
// naming the line.
func ReadObservations(r io.Reader, name string, walk float64) (Reading, error) {
	out := Reading{Skipped: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var res benchResult
		if err := json.Unmarshal(b, &res); err != nil {
			return out, fmt.Errorf("%s:%d: %v: %w", name, line, err, ErrInput)
		}
		switch {
		case res.Type != "result":
			out.Skipped["lines of type "+fmt.Sprintf("%q", res.Type)]++
			continue
		case res.Cache != "cold":
			out.Skipped["warm-cache results"]++
			continue
		case res.Window == nil:
			out.Skipped["results without the loader's settings (older runs)"]++
			continue
		}
		o, err := observation(res, walk)
		if err != nil {
			return out, fmt.Errorf("%s:%d: %v: %w", name, line, err, ErrInput)
		}
		o.Source = fmt.Sprintf("%s:%d", name, line)
		out.Observations = append(out.Observations, o)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// observation checks a result line and turns it into an observation.
func observation(res benchResult, walk float64) (Observation, error) {
	c, err := ParseContender(res.Mode)
	if err != nil {
		return Observation{}, err
	}
	rpn := res.RanksPerNode
	if rpn == 0 && res.Nodes > 0 {
		rpn = (res.Ranks + res.Nodes - 1) / res.Nodes
	}
	epochs := max(res.Epochs, 1)
	o := Observation{
		Config: Config{
			Contender: c, Nodes: res.Nodes, RanksPerNode: rpn,
			Workload: Workload{Bytes: float64(res.Bytes) / float64(epochs), Records: float64(res.Samples) / float64(epochs),
				Batch: res.Batch, Epochs: epochs, Consumer: res.Consumer, Compute: res.ComputePerBatch, WalkFraction: walk},
			Loader: Loader{Direct: res.Direct, Stagger: res.Stagger, IODepth: res.IODepth, Window: *res.Window, MaxSpan: float64(res.MaxSpanBytes)},
		},
		Seconds:   res.Seconds,
		Synthetic: res.Synthetic,
	}
	if err := o.Validate(); err != nil {
		return o, err
	}
	if !(o.Seconds > 0) || math.IsInf(o.Seconds, 0) {
		return o, fmt.Errorf("seconds %v: want a positive time", o.Seconds)
	}
	return o, nil
}
