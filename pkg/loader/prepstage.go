package loader

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/lmdbio/lmdbio/internal/prep"
	"github.com/lmdbio/lmdbio/pkg/failure"
)

// The prep stage (Options.Prep) runs in the learner's process, between the
// raw batches the node reader hands out and the learner's Next. Why there,
// and not in the node reader: the raw batches are already zero-copy views
// in the learner's address space, so prepping them where they arrive costs
// no extra copy or handoff; the stage's output lives in memory of the
// learner (a Go slice the C and Python bindings wrap without a copy);
// and the node reader's loop stays what it is, one job (storage and the
// exchange), so the raw path is untouched and prep never slows its reads.
// The threads are Go goroutines, outside the learner's Python thread and
// Caffe's prefetch thread. See docs/decisions/0016-prep-stage.md.
//
// One goroutine (run) owns the raw side while the stage is on: it takes a
// raw batch, has the pool prep every record into a free buffer, then takes
// the next raw batch, which releases the previous one (its views were
// valid until then). Up to Prefetch prepped batches wait for the learner;
// one more is the learner's. Memory: (Prefetch+1) x B x C x H x W x the
// element's bytes, plus B keys. A pipeline without a fixed output size
// (prep=decode, for Caffe) makes each record a decoded Datum instead, in
// Values: (Prefetch+1) x B buffers, each as large as the largest decoded
// image it held.

// prepStage preps one learner's batches.
type prepStage struct {
	pipe    *prep.Pipeline
	seed    uint64
	sample  int    // bytes of one prepped sample
	shape   [3]int // of one sample: (H, W, C) or (C, H, W)
	threads int
	datums  bool // no fixed output size: each record becomes a decoded Datum (prepstage_datum.go)

	jobs   chan prepJob
	ready  chan *preppedBatch // prepped, for the learner
	free   chan *preppedBatch // buffers the learner gave back
	cancel context.CancelFunc
	ended  chan struct{} // run returned
	pool   sync.WaitGroup

	// The learner's side.
	held   *preppedBatch // the batch the learner holds, to give back at Next
	failed error
	epoch  int // the position after the batch the learner last received
	done   int
}

// preppedBatch is one batch's tensor and what the learner gets with it, or
// the end of an epoch, or the raw side's failure.
type preppedBatch struct {
	images  []byte
	classes []int64
	records []int
	keys    [][]byte
	keyMem  []byte // the keys' bytes: the raw views go when the raw batch is released
	epoch   int    // the batch's epoch
	n       int    // samples in it (a short last batch has fewer)

	eof     bool
	err     error
	atEpoch int // the raw position after this batch
	atDone  int
	errs    []error  // one per sample, set by the pool
	vals    [][]byte // with datums: each slot's decoded Datum, its buffer reused
	wg      sync.WaitGroup
}

// prepJob is one record to prep into slot i of b.
type prepJob struct {
	b      *preppedBatch
	i      int
	value  []byte
	sample prep.Sample
}

// startPrep starts the stage when Options.Prep asks for it; it runs once
// the Loader is open, on every learner alike.
func (l *Loader) startPrep() error {
	if l.opt.Prep == "" {
		return nil
	}
	if l.ds != nil && l.ds.Format != "lmdb" {
		return failure.New(failure.Argument, "loader: --prep takes Caffe Datum values of an LMDB; HDF5 rows are not supported yet")
	}
	p, err := parsePrep(l.opt.Prep)
	if err != nil {
		return fmt.Errorf("%w: --prep: %v", ErrBadOption, err)
	}
	w, h, fixed := p.FixedSize()
	s := &prepStage{pipe: p, seed: l.opt.Seed, threads: prepThreads(l.opt), epoch: l.epoch, done: l.done, datums: !fixed}
	if fixed {
		s.sample, s.shape = p.SampleBytes(w, h), p.Shape(w, h)
	}
	depth := l.opt.Prefetch + 1
	s.ready = make(chan *preppedBatch, depth)
	s.free = make(chan *preppedBatch, depth)
	for range depth {
		s.free <- &preppedBatch{images: make([]byte, l.opt.Batch*s.sample)}
	}
	if err := s.startPool(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.ended = cancel, make(chan struct{})
	l.stage = s
	go s.run(ctx, l)
	return nil
}

// prepThreads is Options.PrepThreads, or the node's cores shared among its
// learners.
func prepThreads(o Options) int {
	if o.PrepThreads > 0 {
		return o.PrepThreads
	}
	learners := 1
	if o.Topology != nil && o.Topology.LocalSize > 0 {
		learners = o.Topology.LocalSize
	}
	return max(1, runtime.NumCPU()/learners)
}

// startPool starts the threads, each with its own prep.Worker (a decoder
// and scratch buffers).
func (s *prepStage) startPool() error {
	s.jobs = make(chan prepJob, s.threads)
	workers := make([]*prep.Worker, s.threads)
	for i := range workers {
		w, err := s.pipe.NewWorker()
		if err != nil {
			for _, w := range workers[:i] {
				w.Close()
			}
			return fmt.Errorf("loader: prep: %w", err)
		}
		workers[i] = w
	}
	for _, w := range workers {
		s.pool.Add(1)
		go func() {
			defer s.pool.Done()
			defer w.Close()
			var scratch datumScratch
			for j := range s.jobs {
				if s.datums {
					j.b.errs[j.i] = s.prepDatum(w, &scratch, j)
				} else {
					j.b.errs[j.i] = s.prepSample(w, j)
				}
				j.b.wg.Done()
			}
		}()
	}
	return nil
}

// prepSample preps job j into its slot of the batch's tensor.
func (s *prepStage) prepSample(w *prep.Worker, j prepJob) error {
	r, err := w.Datum(j.value, j.sample, j.b.images[j.i*s.sample:(j.i+1)*s.sample])
	if err == nil {
		j.b.classes[j.i] = int64(r.Label)
	}
	return err
}

// run is the raw side: it preps each raw batch into a free buffer, in
// order, until the last epoch ends, the raw side fails or the stage stops.
func (s *prepStage) run(ctx context.Context, l *Loader) {
	defer close(s.ended)
	defer close(s.ready)
	for {
		var b *preppedBatch
		select {
		case b = <-s.free:
		case <-ctx.Done():
			return
		}
		raw, err := l.nextRaw(ctx)
		b.eof, b.err, b.atEpoch, b.atDone = err == io.EOF, nil, l.epoch, l.done
		if err != nil && err != io.EOF {
			b.err = err
		} else if err == nil {
			b.err = s.prepBatch(b, raw)
			if b.err != nil && l.client != nil {
				// As a corrupt value does: the node reader stops the run for
				// every learner, so none waits for this one.
				_ = l.client.Fail(b.err.Error())
			}
		}
		select {
		case s.ready <- b:
		case <-ctx.Done():
			return
		}
		if b.err != nil || (b.eof && l.epoch >= l.epochs()) {
			return
		}
	}
}

// prepBatch has the pool prep every record of raw into b; the first failed
// record in the batch's order names itself. A bad sample is a runtime
// failure (exit status 1), as the prep contract asks: the options were
// good, the run met a record it cannot use. There is no skip policy: a
// skipped sample would leave a hole in the batch's tensor.
func (s *prepStage) prepBatch(b *preppedBatch, raw Batch) error {
	n := len(raw.Values)
	b.n, b.epoch = n, raw.Epoch
	b.classes = resize(b.classes, n)
	b.errs = resize(b.errs, n)
	b.records = append(b.records[:0], raw.Records...)
	b.keyMem = b.keyMem[:0]
	for _, k := range raw.Keys {
		b.keyMem = append(b.keyMem, k...)
	}
	b.keys = b.keys[:0]
	at := 0
	for _, k := range raw.Keys {
		b.keys = append(b.keys, b.keyMem[at:at+len(k):at+len(k)])
		at += len(k)
	}
	if s.datums {
		b.vals = resizeKeep(b.vals, n)
	} else if n*s.sample > len(b.images) {
		return failure.New(failure.Internal, fmt.Sprintf("loader: prep: a batch of %d records, more than the %d the stage holds", n, len(b.images)/s.sample))
	}
	b.wg.Add(n)
	for i, v := range raw.Values {
		s.jobs <- prepJob{b: b, i: i, value: v, sample: prep.Sample{Seed: s.seed, Epoch: raw.Epoch, Record: int64(raw.Records[i])}}
	}
	b.wg.Wait()
	for i, err := range b.errs {
		if err != nil {
			return failure.Mark(fmt.Errorf("loader: prep: record %d (key %q): %v", raw.Records[i], raw.Keys[i], err), failure.Runtime)
		}
	}
	return nil
}

// resizeKeep is s with n elements, keeping what it held (the slots'
// buffers, for reuse).
func resizeKeep[T any](s []T, n int) []T {
	if cap(s) < n {
		return append(s[:cap(s)], make([]T, n-cap(s))...)
	}
	return s[:n]
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	clear(s[:n])
	return s[:n]
}

// next is the learner's Next with the stage on: it gives back the batch it
// held and returns the next prepped one.
func (s *prepStage) next(ctx context.Context) (Batch, error) {
	if s.failed != nil {
		return Batch{}, s.failed
	}
	if s.held != nil {
		s.free <- s.held
		s.held = nil
	}
	var b *preppedBatch
	var ok bool
	select {
	case b, ok = <-s.ready:
	case <-ctx.Done():
		return Batch{}, ctx.Err()
	}
	if !ok {
		return Batch{}, io.EOF // after the last epoch
	}
	s.epoch, s.done = b.atEpoch, b.atDone
	switch {
	case b.err != nil:
		s.failed = b.err
		return Batch{}, b.err
	case b.eof:
		s.free <- b
		return Batch{}, io.EOF
	}
	s.held = b
	return s.batch(b), nil
}

// batch is the learner's view of b.
func (s *prepStage) batch(b *preppedBatch) Batch {
	if s.datums {
		return Batch{Epoch: b.epoch, Records: b.records, Keys: b.keys, Values: b.vals[:b.n:b.n]}
	}
	shape := [4]int{b.n, s.shape[0], s.shape[1], s.shape[2]}
	return Batch{Epoch: b.epoch, Records: b.records, Keys: b.keys,
		Images: b.images[: b.n*s.sample : b.n*s.sample], Shape: shape, Layout: s.layout(),
		DType: s.pipe.DType().String(), Classes: b.classes}
}

func (s *prepStage) layout() string {
	if s.pipe.CHW() {
		return "NCHW"
	}
	return "NHWC"
}

// stop ends the raw side and the pool; the Loader closes the raw side after.
func (s *prepStage) stop() {
	s.cancel()
	<-s.ended
	close(s.jobs)
	s.pool.Wait()
}

// epochs is the epochs the raw side delivers.
func (l *Loader) epochs() int {
	if l.walk != nil {
		return l.walk.epochs
	}
	return l.cfg.Epochs
}

// position is the epoch Next is in and the batches of it received, as the
// learner sees them: with the stage on, the raw side runs ahead.
func (l *Loader) position() (epoch, done int) {
	if l.stage != nil {
		return l.stage.epoch, l.stage.done
	}
	return l.epoch, l.done
}

// StartPrep starts the prep stage of a Loader that Attach returned, with
// opt's Prep, PrepThreads, Seed, Batch and Prefetch (the options the node
// reader was asked for); Open starts it itself.
func (l *Loader) StartPrep(opt Options) error {
	if l.stage != nil || opt.Prep == "" {
		return nil
	}
	l.opt.Prep, l.opt.PrepThreads, l.opt.Seed = opt.Prep, opt.PrepThreads, opt.Seed
	l.opt.Batch, l.opt.Prefetch = cmp.Or(opt.Batch, DefaultBatch), cmp.Or(opt.Prefetch, DefaultPrefetch)
	return l.startPrep()
}
