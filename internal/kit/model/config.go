package model

import (
	"fmt"
	"strings"
)

// Contender is a way of loading the dataset the model knows.
type Contender string

// The contenders, in the order of LMDBIO's stacked study, then the
// shuffling cache.
const (
	// Caffe is the Caffe-MPI baseline (lmdbio's lmdb mode): every rank
	// walks an LMDB cursor over its own mmap of the file and faults its
	// own pages through its node's client cache, readahead-sized requests.
	Caffe Contender = "caffe"
	// LMM: one reader per node walks the cursor and faults the pages,
	// then copies records into shared memory for the node's learners.
	LMM Contender = "lmm"
	// DIO: the reader preads each batch's byte range instead of faulting.
	DIO Contender = "lmm+dio"
	// PROV: record places come from an index: no cursor walk.
	PROV Contender = "lmm+dio+prov"
	// COAL: windows of many batches read in large spans, several in flight.
	COAL Contender = "lmm+dio+prov+coal"
	// STAG, lmdbio's default: node readers take turns on storage, only
	// Stagger of them at once.
	STAG Contender = "default"
	// Exchange is shuffle + cache + exchange: each node reads its own
	// contiguous share as STAG does and keeps it; samples reach the node
	// that needs them by an all-to-all between nodes. Later epochs read
	// nothing from storage.
	Exchange Contender = "exchange"
)

// Contenders lists every contender in order.
func Contenders() []Contender { return []Contender{Caffe, LMM, DIO, PROV, COAL, STAG, Exchange} }

// ParseContender reads a contender's name. lmdbio-bench bench's mode names are
// accepted too: "lmdb" is the Caffe baseline, the full stack is "default".
func ParseContender(s string) (Contender, error) {
	switch s {
	case "lmdb":
		return Caffe, nil
	case "lmm+dio+prov+coal+stag":
		return STAG, nil
	}
	for _, c := range Contenders() {
		if string(c) == s {
			return c, nil
		}
	}
	names := make([]string, 0, 8)
	for _, c := range Contenders() {
		names = append(names, string(c))
	}
	return "", fmt.Errorf("contender %q: want one of %s", s, strings.Join(names, ", "))
}

// BenchMode is the lmdbio-bench bench mode that measures the contender.
func (c Contender) BenchMode() string {
	if c == Caffe {
		return "lmdb"
	}
	return string(c)
}

// stage says how far up LMDBIO's stack a contender is: 0 for the Caffe
// baseline, 5 for the full stack (and the exchange, which builds on it).
func (c Contender) stage() int {
	switch c {
	case Caffe:
		return 0
	case LMM:
		return 1
	case DIO:
		return 2
	case PROV:
		return 3
	case COAL:
		return 4
	}
	return 5
}

// Workload is what a run reads and what its learners do with it.
type Workload struct {
	Bytes    float64 // the dataset's value bytes, read once per epoch
	Records  float64
	Batch    int     // records per learner batch
	Epochs   int     // epochs read
	Consumer string  // touch, sha256 or none
	Compute  float64 // emulated accelerator time per batch, seconds
	// WalkFraction is the share of the file a cursor walk faults in per
	// byte of data: 1 when records sit inline in LMDB's leaf pages (small
	// records: walking past a record reads it), about key size / record
	// size when values live on overflow pages.
	WalkFraction float64
}

// Loader are the settings of lmdbio's loader a run used.
type Loader struct {
	Direct  bool
	Stagger int     // node readers on storage at once
	IODepth int     // reads in flight per node reader
	Window  float64 // bytes per coalesced window
	MaxSpan float64 // largest single read
}

// DefaultLoader is lmdbio's default loader settings.
var DefaultLoader = Loader{Stagger: 4, IODepth: 8, Window: 64 << 20, MaxSpan: 16 << 20}

// Config is one run: a contender on a number of nodes and learners per node.
type Config struct {
	Contender    Contender
	Nodes        int
	RanksPerNode int
	Workload
	Loader
}

// Validate checks that a configuration can be predicted.
func (c Config) Validate() error {
	switch {
	case c.Nodes < 1 || c.RanksPerNode < 1:
		return fmt.Errorf("model: %d nodes of %d ranks: want at least one of each", c.Nodes, c.RanksPerNode)
	case c.Bytes <= 0 || c.Records < 1:
		return fmt.Errorf("model: dataset of %v bytes in %v records: want both positive", c.Bytes, c.Records)
	case c.Batch < 1 || c.Epochs < 1:
		return fmt.Errorf("model: batch %d, epochs %d: want at least 1", c.Batch, c.Epochs)
	case c.WalkFraction < 0 || c.WalkFraction > 1:
		return fmt.Errorf("model: walk fraction %v: want 0 to 1", c.WalkFraction)
	case c.Compute < 0:
		return fmt.Errorf("model: compute per batch %v: want >= 0", c.Compute)
	case c.Stagger < 1 || c.IODepth < 1 || c.Window <= 0 || c.MaxSpan <= 0:
		return fmt.Errorf("model: loader settings %+v: want positive", c.Loader)
	}
	if _, err := ParseContender(string(c.Contender)); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if _, err := consumeRate(Params{TouchRate: 1, SHA256Rate: 1}, c.Consumer); err != nil {
		return err
	}
	return nil
}

// consumeRate is one core's rate for a consumer; "none" costs nothing.
func consumeRate(p Params, consumer string) (float64, error) {
	switch consumer {
	case "touch":
		return p.TouchRate, nil
	case "sha256":
		return p.SHA256Rate, nil
	case "none", "":
		return 0, nil
	}
	return 0, fmt.Errorf("model: consumer %q: want touch, sha256 or none", consumer)
}
