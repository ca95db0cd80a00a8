package loader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/lmdbio/lmdbio/internal/regular"
	"github.com/lmdbio/lmdbio/pkg/failure"
)

// StateVersion is the format version of State documents this build writes
// and reads. Version 2 came with the chunk order that deals chunks into
// windows one from each stretch of the file: a version-1 state of a chunk
// run would continue in another order, so only its other orders are read.
// Version 3 came with the nodes' shares of a keep run in the file's order
// (shuffle none or local) proportional to their learners: such a state of
// an earlier version taken mid-epoch would continue with other shares,
// delivering some records twice and others never. Version 4 came with
// shuffle none in key order (the file's order is now shuffle file): a state
// of shuffle none of an earlier version taken mid-epoch was in the file's
// order. Version 4 also names the dataset by a fingerprint of its content
// instead of its LMDB transaction and size or its HDF5 file's modification
// time, and carries a checksum of its fields: states of earlier versions
// are still read, checked against the dataset as before, without a
// checksum.
const StateVersion = 4

// State is where a run is: enough to continue it exactly, also with another
// number of ranks or nodes, as long as the global batch size is the same.
// It is a small JSON document (see MarshalJSON's field names).
type State struct {
	Version int `json:"version"`
	// Identity names the dataset: from version 4 its content fingerprint
	// (package fingerprint), before it the snapshot's source.Info.Identity.
	Identity    string `json:"dataset"`
	Records     int    `json:"records"`
	Shuffle     string `json:"shuffle"`
	Seed        uint64 `json:"seed"`
	ChunkBytes  int64  `json:"chunk_bytes"`
	ChunkWindow int    `json:"chunk_window"`
	Remainder   string `json:"remainder"`
	GlobalBatch int    `json:"global_batch"` // records per global batch: batch x learners
	NodeSizes   []int  `json:"node_sizes"`   // learners per node of the run that saved it
	// Epoch is the epoch in progress and GlobalBatches the global batches of
	// it already delivered to every learner.
	Epoch         int `json:"epoch"`
	GlobalBatches int `json:"global_batches"`
}

// ErrResume marks a resume state that does not fit the run (another
// dataset, shuffle or global batch size) or cannot be read.
var ErrResume = failure.New(failure.Input, "resume state")

// ParseState reads a State document, checking its version and fields.
func ParseState(b []byte) (*State, error) {
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: not a state document: %v", ErrResume, err)
	}
	if name := missingField(b); name != "" {
		return nil, fmt.Errorf("%w: damaged: no %q", ErrResume, name)
	}
	switch {
	case s.Version == 1 && s.Shuffle == "chunk":
		return nil, fmt.Errorf("%w: a chunk-shuffled run saved by an earlier lmdbio (state version 1), whose chunk order this build no longer makes: start the epoch again", ErrResume)
	case s.Version < 3 && s.Remainder == "keep" && (s.Shuffle == "none" || s.Shuffle == "local") && s.GlobalBatches > 0:
		return nil, fmt.Errorf("%w: a keep run in the file's order saved mid-epoch by an earlier lmdbio (state version %d), whose shares of the nodes this build no longer makes: start the epoch again", ErrResume, s.Version)
	case s.Version < 4 && s.Shuffle == "none" && s.GlobalBatches > 0:
		return nil, fmt.Errorf("%w: a run of shuffle none saved mid-epoch by an earlier lmdbio (state version %d), in the file's order, where shuffle none is now key order: start the epoch again", ErrResume, s.Version)
	case s.Version < 1 || s.Version > StateVersion:
		return nil, fmt.Errorf("%w: format version %d, this build reads versions 1 to %d", ErrResume, s.Version, StateVersion)
	case s.Version >= 4:
		if err := checkSum(b, &s); err != nil {
			return nil, err
		}
	}
	switch {
	case s.Records < 0 || s.GlobalBatch < 1 || s.Epoch < 0 || s.GlobalBatches < 0 || len(s.NodeSizes) == 0:
		return nil, fmt.Errorf("%w: damaged: records, global_batch, epoch, global_batches or node_sizes negative or empty", ErrResume)
	}
	learners := 0
	for _, n := range s.NodeSizes {
		if n < 1 || n > 1<<24 {
			return nil, fmt.Errorf("%w: damaged: a node of %d learners", ErrResume, n)
		}
		learners += n
	}
	if learners > s.GlobalBatch || s.GlobalBatch%learners != 0 {
		return nil, fmt.Errorf("%w: damaged: a global batch of %d for %d learners", ErrResume, s.GlobalBatch, learners)
	}
	return &s, nil
}

// maxStateFile bounds a resume file: a state is a few hundred bytes (its
// node_sizes a few per node), and a path given by mistake, a device or a
// huge file, must not be read whole.
const maxStateFile = 1 << 20

// ReadStateFile reads the State document in the file at path. The file
// must be a regular file (a FIFO would block the open, a device never
// end) of at most maxStateFile bytes.
func ReadStateFile(path string) (*State, error) {
	f, st, err := regular.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrResume, err) // keeps fs.ErrNotExist and the like
	}
	defer f.Close()
	if st.Size() > maxStateFile {
		return nil, fmt.Errorf("%w: %s: %d bytes, not a resume state (at most %d)", ErrResume, path, st.Size(), maxStateFile)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxStateFile+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrResume, path, err)
	}
	return ParseState(bytes.TrimSpace(b))
}

// missingField names the first field of a State that document b lacks or
// sets to null, "" if it has them all. Every state lmdbio writes has every
// field; one without, read as zero, would start its epoch again and deliver
// records twice.
func missingField(b []byte) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(b, &fields) != nil {
		return ""
	}
	t := reflect.TypeFor[State]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if v, ok := fields[name]; !ok || string(v) == "null" {
			return name
		}
	}
	return ""
}

// fingerprint identifies the state for the agreement between ranks.
func (s *State) fingerprint() string {
	b, _ := json.Marshal(s)
	return string(b)
}

// check says whether the state continues this run: the same records, the
// same order and the same global batch.
func (s *State) check(ds *dataset, opt Options, sizes []int) error {
	learners := sum(sizes)
	if err := s.sameDataset(ds); err != nil {
		return err
	}
	for _, c := range []struct {
		what       string
		saved, now any
	}{
		{"records", s.Records, ds.Records},
		{"shuffle", s.Shuffle, opt.Shuffle.String()},
		{"seed", s.Seed, opt.Seed},
		{"chunk", s.ChunkBytes, opt.ChunkBytes},
		{"chunk-window", s.ChunkWindow, opt.ChunkWindow},
		{"remainder", s.Remainder, opt.Remainder.String()},
		{"global batch (batch x learners)", s.GlobalBatch, opt.Batch * learners},
	} {
		if c.saved != c.now {
			return fmt.Errorf("%w: it was saved with %s %v, this run has %v: resume with the same dataset, shuffle, seed and global batch size (--batch x ranks)",
				ErrResume, c.what, c.saved, c.now)
		}
	}
	if s.Epoch >= opt.Epochs {
		return fmt.Errorf("%w: it is at epoch %d, and this run has only %d epochs: raise --epochs", ErrResume, s.Epoch, opt.Epochs)
	}
	return nil
}

// fits says whether the state's global batches fit in its epoch, of rounds
// global batches: more means a damaged state, or one of another run.
func (s *State) fits(rounds int) error {
	if s.GlobalBatches > rounds {
		return fmt.Errorf("%w: it says %d global batches of epoch %d were delivered, and an epoch here has %d: the state is damaged or belongs to another run",
			ErrResume, s.GlobalBatches, s.Epoch, rounds)
	}
	return nil
}

// stateAt is the state after globalBatches of epoch.
func stateAt(ds *dataset, opt Options, sizes []int, epoch, globalBatches int) State {
	return State{Version: StateVersion, Identity: ds.Fingerprint, Records: ds.Records, Shuffle: opt.Shuffle.String(),
		Seed: opt.Seed, ChunkBytes: opt.ChunkBytes, ChunkWindow: opt.ChunkWindow, Remainder: opt.Remainder.String(),
		GlobalBatch: opt.Batch * sum(sizes), NodeSizes: slices.Clone(sizes), Epoch: epoch, GlobalBatches: globalBatches}
}
