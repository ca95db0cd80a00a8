package loader

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lmdbio/lmdbio/internal/handoff"
	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/internal/shm"
	"github.com/lmdbio/lmdbio/pkg/index"
)

// Batch is one learner's next records. Keys, Values and Labels are views
// into shared memory (or, in the lmdb mode, into liblmdb's map): they are
// valid until the learner's next call to Next or Close, and must not be
// written.
type Batch struct {
	Epoch   int
	Records []int // record numbers in the dataset's order
	Keys    [][]byte
	Values  [][]byte
	Labels  [][]byte // empty views when the dataset has no labels

	// With Options.Prep, the prepped samples instead of Values and Labels
	// (which are then nil; Keys and Records are copies): Images holds
	// Shape[0] samples back to back, one tensor of shape (B, H, W, C), or
	// (B, C, H, W) with the pipeline's chw (Layout), of DType ("uint8", "float16"
	// or "float32", native byte order); Classes holds each sample's
	// Datum label. Valid until the learner's next call to Next or Close.
	Images  []byte
	Shape   [4]int
	Layout  string // "NHWC", or "NCHW" with chw
	DType   string
	Classes []int64
}

// Loader delivers one learner's batches. It is used by one goroutine.
type Loader struct {
	opt   Options
	ds    *dataset
	sizes []int // learners per node
	cfg   runConfig
	epoch int // the epoch Next is in
	done  int // batches received in this epoch

	// learner side, LMM modes
	segs   []segment // by segment number: the arena, the cache, the data file
	client *handoff.Client
	held   uint64 // batch to release on the next call; 0 for none
	batch  Batch  // reused between calls
	lead   *leader
	ahead  *mapAhead // maps the node cache in, when the order changes every epoch
	walk   *rankWalk // the lmdb mode: this rank walks the database itself
	closed bool
	failed error      // what ended the run for this learner: Next returns it again
	stage  *prepStage // Options.Prep: preps the raw batches ahead of Next (prepstage.go)
}

// runConfig is what a node reader tells its learners in Welcome: all a
// learner needs to know of the run, MPI rank or not.
type runConfig struct {
	Records     int   `json:"records"`
	Epochs      int   `json:"epochs"`
	Rounds      int   `json:"rounds"`       // batches per learner in a whole epoch
	FirstEpoch  int   `json:"first_epoch"`  // the epoch the run starts in
	FirstRounds int   `json:"first_rounds"` // batches per learner left in it
	FirstDone   int   `json:"first_done"`   // global batches of it delivered before this run
	State       State `json:"state"`        // the run's State, at its start
	// ViewSegment is the number of the segment that is the data file,
	// which learners map read-only; -1 when they do not view it.
	ViewSegment int `json:"view_segment"`
	// Direct says whether the node reader reads the data file with
	// O_DIRECT.
	Direct bool `json:"direct"`
	// MapCache says that learners should map the whole node cache in
	// while it fills (see mapAhead).
	MapCache bool `json:"map_cache"`
	// Heads, when set, is how learners check the bytes in front of each
	// value they view (see leader.heads).
	Heads *index.Heads `json:"heads,omitempty"`
}

// segment is memory a learner maps: a shared-memory segment or the data
// file.
type segment interface {
	Bytes() []byte
	Close() error
}

// attach connects learner local to the node reader listening on socket and
// maps the shared memory it passes in Welcome.
func (l *Loader) attach(socket string, local int) error {
	ctx, cancel := context.WithTimeout(context.Background(), acceptTimeout)
	defer cancel()
	var err error
	if l.client, err = handoff.Dial(ctx, socket, local); err != nil {
		return err
	}
	w, files, err := l.client.Welcome(ctx)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(w.Config, &l.cfg); err != nil {
		for _, f := range files {
			f.Close()
		}
		return fmt.Errorf("loader: the node reader's welcome: %w", err)
	}
	for i, f := range files {
		var seg segment
		var err error
		if i == l.cfg.ViewSegment {
			seg, err = mapView(f)
		} else {
			seg, err = shm.OpenFile(f)
		}
		if err != nil {
			for _, g := range files[i+1:] {
				g.Close()
			}
			return err
		}
		l.segs = append(l.segs, seg)
	}
	if l.cfg.MapCache && len(l.segs) > segCache && l.cfg.ViewSegment != segCache {
		l.ahead = startMapAhead(l.segs[segCache].Bytes())
	}
	return nil
}

// welcome accepts the node's learners and sends each the run's config and
// the shared memory.
func (ld *leader) welcome(timeout time.Duration) error {
	if err := ld.server.Accept(context.Background(), timeout); err != nil {
		return err
	}
	cfg, err := json.Marshal(ld.config())
	if err != nil {
		return err
	}
	for local := range ld.learners {
		if err := ld.server.Welcome(local, handoff.Welcome{Config: cfg}, ld.files()); err != nil {
			return err
		}
	}
	return nil
}

// config is what the learners need to know of the run.
func (ld *leader) config() runConfig {
	c := runConfig{Records: ld.ds.Records, Epochs: ld.opt.Epochs, State: stateAt(ld.ds, ld.opt, ld.sizes, 0, 0), ViewSegment: -1}
	if ld.view != nil {
		c.ViewSegment, c.Heads = int(ld.viewSegment()), ld.heads()
	}
	ld.prod.configure(&c)
	return c
}

// Next returns the learner's next batch, or io.EOF at the end of an epoch.
// After the last epoch it keeps returning io.EOF. The previous batch's views
// become invalid. A value whose bytes do not match the index ends the
// learner's run with an error that Next returns again; the node reader
// finds it or, where the learner views the data file, the learner itself
// (then the error wraps index.ErrCorrupt).
func (l *Loader) Next(ctx context.Context) (Batch, error) {
	if l.closed {
		return Batch{}, errors.New("loader: Next after Close")
	}
	if l.stage != nil {
		return l.stage.next(ctx)
	}
	return l.nextRaw(ctx)
}

// nextRaw is Next without the prep stage; with it, the stage's goroutine
// calls it.
func (l *Loader) nextRaw(ctx context.Context) (Batch, error) {
	if l.failed != nil {
		return Batch{}, l.failed
	}
	if l.walk != nil {
		b, err := l.walk.next()
		l.epoch, l.done = l.walk.epoch, l.walk.round
		return b, err
	}
	if l.held != 0 {
		if err := l.client.Release(l.held); err != nil {
			return Batch{}, err
		}
		l.held = 0
	}
	if l.epoch >= l.cfg.Epochs {
		return Batch{}, io.EOF
	}
	m, err := l.client.Recv(ctx)
	if err != nil {
		return Batch{}, err
	}
	switch m := m.(type) {
	case handoff.Batch:
		l.done++
		b, err := l.views(m)
		if err != nil {
			// The node reader stops the run for every learner, and tells
			// the other node readers, as when it finds the fault itself.
			l.failed = err
			_ = l.client.Fail(err.Error())
		}
		return b, err
	case handoff.EndOfEpoch:
		l.epoch++
		l.done = 0
		return Batch{}, io.EOF
	default:
		return Batch{}, fmt.Errorf("loader: node reader sent %v", m.Type())
	}
}

// views turns a batch descriptor into views of the shared memory.
func (l *Loader) views(m handoff.Batch) (Batch, error) {
	arena := l.segs[segArena].Bytes()
	b := &l.batch
	b.Epoch = int(m.Epoch)
	b.Records, b.Keys, b.Values, b.Labels = b.Records[:0], b.Keys[:0], b.Values[:0], b.Labels[:0]
	for _, it := range m.Items {
		if int(it.Segment) >= len(l.segs) {
			return Batch{}, fmt.Errorf("loader: batch %d places record %d in segment %d of %d", m.ID, it.Record, it.Segment, len(l.segs))
		}
		seg := l.segs[it.Segment].Bytes()
		if it.Offset+it.Length > int64(len(seg)) || it.KeyOffset+it.KeyLength > int64(len(arena)) ||
			it.LabelOffset+it.LabelLength > int64(len(arena)) {
			return Batch{}, fmt.Errorf("loader: batch %d places record %d outside the shared memory", m.ID, it.Record)
		}
		key := view(arena, it.KeyOffset, it.KeyLength)
		if h := l.cfg.Heads; h != nil && int(it.Segment) == l.cfg.ViewSegment {
			if err := h.Check(seg, int(it.Record), it.Offset, it.Length, key); err != nil {
				return Batch{}, err
			}
		}
		b.Records = append(b.Records, int(it.Record))
		b.Keys = append(b.Keys, key)
		b.Values = append(b.Values, view(seg, it.Offset, it.Length))
		b.Labels = append(b.Labels, view(arena, it.LabelOffset, it.LabelLength))
	}
	l.held = m.ID
	return *b, nil
}

func view(b []byte, off, n int64) []byte { return b[off : off+n : off+n] }

// Records is the number of records in the dataset.
func (l *Loader) Records() int { return l.cfg.Records }

// Direct reports whether the node reader reads the data file with O_DIRECT:
// asked for with Options.Direct, or picked on a network or cluster file
// system (see Options.Direct).
func (l *Loader) Direct() bool { return l.cfg.Direct }

// Rounds is the number of batches every learner gets in the epoch Next is
// in (a resumed epoch has only the rest).
func (l *Loader) Rounds() int {
	if epoch, _ := l.position(); epoch == l.cfg.FirstEpoch {
		return l.cfg.FirstRounds
	}
	return l.cfg.Rounds
}

// Epoch is the epoch Next is in.
func (l *Loader) Epoch() int { epoch, _ := l.position(); return epoch }

// State returns where the run is, to continue it later with
// Options.Resume: the epoch Next is in and the global batches of it this
// learner has received (every learner receives one batch of each). Every
// learner of a job returns the same State at the same step.
func (l *Loader) State() State {
	epoch, done := l.position()
	rounds := l.cfg.Rounds
	if epoch == l.cfg.FirstEpoch {
		done += l.cfg.FirstDone
		rounds = l.cfg.FirstDone + l.cfg.FirstRounds
	}
	st := l.cfg.State
	if done >= rounds {
		// Every batch of the epoch was received: the next is where to go on.
		st.Epoch, st.GlobalBatches = epoch+1, 0
	} else {
		st.Epoch, st.GlobalBatches = epoch, done
	}
	return st
}

// IndexFrom says where the index came from (rank 0 only; "" elsewhere or
// without an index).
func (l *Loader) IndexFrom() string {
	if l.ds == nil {
		return ""
	}
	return l.ds.IndexFrom
}

// ArenaBytes is the size of the node's shared-memory arena (0 in the lmdb
// mode, which has none).
func (l *Loader) ArenaBytes() int64 {
	if len(l.segs) == 0 {
		return 0
	}
	return int64(len(l.segs[segArena].Bytes()))
}

// CacheBytes is the size of the node's cache (0 without one).
func (l *Loader) CacheBytes() int64 {
	if len(l.segs) <= segCache || l.cfg.ViewSegment == segCache {
		return 0
	}
	return int64(len(l.segs[segCache].Bytes()))
}

// Stats are the reads that reached storage on this rank.
func (l *Loader) Stats() reader.Stats {
	if l.lead == nil {
		return reader.Stats{}
	}
	return l.lead.prod.readStats()
}

// EpochStats are epoch's figures on this rank: non-zero on node readers
// only. Sum them over the ranks for the job's.
func (l *Loader) EpochStats(epoch int) EpochStats {
	if l.lead == nil {
		return EpochStats{}
	}
	return l.lead.stats.get(epoch)
}

// Close ends the learner's part. On a node leader it waits until the node
// reader has finished and every learner of the node has closed, so the
// shared memory is never taken away from a learner still reading it.
func (l *Loader) Close() error {
	if l.closed {
		return nil
	}
	l.closed = true
	if l.stage != nil {
		l.stage.stop() // before the raw side it reads closes
	}
	var err error
	if l.walk != nil {
		err = l.walk.close()
	}
	if l.client != nil {
		err = l.client.Close()
	}
	if l.lead != nil {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		if e := l.lead.close(ctx); e != nil {
			err = e
		}
	}
	l.ahead.close()
	for _, s := range l.segs {
		if e := s.Close(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// closeTimeout bounds how long a node leader waits at Close for learners
// that stopped reading without closing. A variable for tests.
var closeTimeout = 30 * time.Second
