package main

import "github.com/lmdbio/lmdbio/internal/kit/schema"

// The report reads the bench's lines as the bench declares them (package
// schema), with what the report knows of each: the storage it measured
// and the input it came from. The lines are embedded under names of their
// own, so that a line's fields named like its type (a peer line's "peer",
// an epoch line's "epoch") stay the report's p.Peer and e.Epoch.
type (
	resultLine   = schema.Result
	limitLine    = schema.Limit
	peerLine     = schema.Peer
	auSearchLine = schema.AUSearch
	epochLine    = schema.Epoch
)

// Result is one "result" line: one loader mode measured once (one round) at
// one rank count and cache state. Mode is the contender's name: the line's
// "contender" where it has one (a mode with its shuffle, locality or
// stagger, "default/global/locality-off"), else its "mode". Lines marked
// Synthetic (made by a model) are refused.
type Result struct {
	resultLine
	// Storage is what was measured: the input's label, else the line's own
	// "storage" field (runs before the labels had one).
	Storage string `json:"storage"`
	// Run is the input the line came from: with Round, which contenders
	// were measured side by side.
	Run string `json:"-"`
}

// IsWorkload reports whether r ran an emulated accelerator workload, whose
// throughput is bounded by the emulated compute rather than by loading.
func (r Result) IsWorkload() bool { return r.Workload != "" && r.Workload != "none" }

// Limit is one "limit" line: one probe of the storage, reading the data
// file front to back as a tuned reader would (buffered or O_DIRECT, several
// streams, several requests in flight). The fastest probe of a round is the
// limit every contender is compared with. Older runs had no probe and one
// host (see parse.go).
type Limit struct {
	limitLine
	Storage string `json:"storage"` // as Result.Storage
	Run     string `json:"-"`       // as Result.Run
}

// Peer is one "peer" line: a loader users run today, measured in the same
// run on the same dataset. Older runs read one epoch and did not say, and
// had no consumer (see parse.go).
type Peer struct {
	peerLine
	Storage string `json:"storage"` // as Result.Storage
	Run     string `json:"-"`       // as Result.Run
}

// AUSearch is one "au-search" line: the largest number of emulated
// accelerators per node that kept utilisation at or above Threshold.
type AUSearch struct {
	auSearchLine
	Storage string `json:"storage"` // as Result.Storage
}

// Machine is one "machine" line, kept as its fields because runs on
// different machines describe themselves differently.
type Machine struct {
	Storage string
	Fields  map[string]any
}

// Epoch is one "epoch" line: one epoch of a mode (Kind "mode") or of a
// peer (Kind "peer") in one measurement.
type Epoch struct {
	epochLine
	Storage string `json:"storage"` // as Result.Storage
}

// Quality is one "shuffle-quality" line of lmdbio-bench shuffle-quality.
type Quality = schema.ShuffleQuality

// Residual is one "residual" line of lmdbio-bench model fit --json: a run's
// measured and predicted time, fitted on or held out.
type Residual = schema.Residual

// Fit is the "fit" line of lmdbio-bench model fit --json.
type Fit = schema.Fit

// Prediction is one "prediction" line of lmdbio-bench model predict --json.
type Prediction = schema.Prediction

// Dataset is everything read from the inputs, in input order.
type Dataset struct {
	Results     []Result
	Limits      []Limit
	Peers       []Peer
	AUSearches  []AUSearch
	Machines    []Machine
	Epochs      []Epoch
	Qualities   []Quality
	Residuals   []Residual
	Fits        []Fit
	Predictions []Prediction
	// Inputs names each input and its label, for the report's header.
	Inputs []string
	// Notes say how lines from older runs were read.
	Notes []string
}
