package loader

import (
	"context"
	"errors"
	"fmt"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"os"
	"sync/atomic"
	"time"

	"github.com/lmdbio/lmdbio/pkg/reader"
	"github.com/lmdbio/lmdbio/pkg/ring"
	"github.com/lmdbio/lmdbio/pkg/shm"
)

// acceptTimeout bounds how long a node leader waits for its learners to
// connect; a learner that never comes is a launch problem, not a reason to hang.
const acceptTimeout = 60 * time.Second

// leader is the node reader: it fetches the node's windows into the arena
// and tells each learner where its batches are.
type leader struct {
	opt    Options
	ds     *dataset
	sched  schedule
	seg    *shm.Segment
	buf    []byte // the arena's bytes in this process
	arena  *arena
	server *ring.Server
	fetch  fetcher
	stag   *reader.Stagger

	cancel  context.CancelFunc // stops the producer
	failed  chan error         // the first learner failure, from watch
	done    chan struct{}      // closed when the producer has ended
	err     error              // why it ended; set before done is closed
	closing atomic.Bool        // Close stopped the producer: not a failure
}

// fetcher fills a window's batches into the arena: the part of the reader
// that differs between modes.
type fetcher interface {
	// fetch places the records of batches (ids[i] for batches[i]) in the
	// arena and returns, per batch, where each record's key and value lie.
	// It calls acquire once, right before it touches storage: staggering
	// waits there for the node's turn.
	fetch(ctx context.Context, batches []batchRef, ids []uint64, acquire func() error) ([][]ring.Item, error)
	// windowBytes bounds the arena bytes one window needs, 0 if unknown.
	windowBytes(batches []batchRef) int64
	// attach gives the fetcher the arena it fills.
	attach(a *arena, buf []byte)
	stats() reader.Stats
	close() error
}

// arenaSize is the shared memory a node needs: Prefetch windows being read
// ahead plus the one the learners consume.
func arenaSize(ld *leader) int64 {
	need := int64(0)
	for w := 0; w < ld.sched.windows(); w++ {
		need = max(need, ld.fetch.windowBytes(ld.sched.window(0, w)))
	}
	if need == 0 { // unknown sizes (no index): estimate from the mean record
		refs := ld.sched.window(0, 0)
		for _, r := range refs {
			need += int64(len(r.records)) * ld.ds.meanRecord() * 2
		}
	}
	need = roundUp(need+alignment, alignment)
	return int64(ld.opt.Prefetch+1) * need
}

// run produces every epoch, then ends. On failure it tells the learners why.
func (ld *leader) run(ctx context.Context) {
	defer close(ld.done)
	ld.err = ld.produce(ctx)
	if ld.err != nil && !ld.closing.Load() {
		_ = ld.server.Fail(ld.err.Error())
	}
}

func (ld *leader) produce(ctx context.Context) error {
	failed := ld.failed
	var nextID uint64
	windowNo := 0
	for epoch := 0; epoch < ld.opt.Epochs; epoch++ {
		for w := 0; w < ld.sched.windows(); w++ {
			batches := ld.sched.window(epoch, w)
			ids := make([]uint64, len(batches))
			for i := range ids {
				nextID++
				ids[i] = nextID
			}
			if err := ld.stage(ctx, epoch, windowNo, batches, ids); err != nil {
				return firstError(failed, err)
			}
			windowNo++
		}
		for local := 0; local < ld.sched.learners; local++ {
			if err := ld.server.Send(local, ring.EndOfEpoch{Epoch: uint32(epoch)}); err != nil {
				return firstError(failed, err)
			}
		}
	}
	return nil
}

// stage fetches one window, taking its turn on storage, and hands out its
// batches before passing the turn on (passing may wait for the other
// readers, and the learners need not).
func (ld *leader) stage(ctx context.Context, epoch, windowNo int, batches []batchRef, ids []uint64) error {
	acquire := func() error { return nil }
	if ld.stag != nil {
		acquire = func() error {
			if err := ld.stag.Acquire(windowNo); err != nil {
				return fmt.Errorf("waiting for the storage token: %w", err)
			}
			return nil
		}
	}
	items, err := ld.fetch.fetch(ctx, batches, ids, acquire)
	for i := 0; err == nil && i < len(batches); i++ {
		m := ring.Batch{ID: ids[i], Epoch: uint32(epoch), Items: items[i]}
		err = ld.server.Send(batches[i].local, m)
	}
	if err != nil {
		return err // the job ends: other readers waiting for the token are stopped by the abort
	}
	if ld.stag != nil {
		if err := ld.stag.Release(windowNo); err != nil {
			return fmt.Errorf("passing the storage token: %w", err)
		}
	}
	return nil
}

// watch frees arena space as learners release batches, and stops the
// producer at the first learner that fails. It runs until the server closes.
func (ld *leader) watch() {
	releases, errs := ld.server.Releases(), ld.server.Errors()
	for releases != nil || errs != nil {
		select {
		case r, ok := <-releases:
			if !ok {
				releases = nil
			} else if err := ld.arena.release(r.ID); err != nil {
				ld.stop(fmt.Errorf("learner %d: %w", r.Learner, err))
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
			} else {
				ld.stop(err)
			}
		}
	}
}

// stop records the first failure and stops the producer.
func (ld *leader) stop(err error) {
	select {
	case ld.failed <- err:
	default:
	}
	ld.cancel()
}

// firstError prefers a learner's failure, which is usually why producing
// stopped, over the producer's own symptom of it.
func firstError(failed <-chan error, err error) error {
	select {
	case f := <-failed:
		return f
	default:
	}
	if errors.Is(err, context.Canceled) {
		select {
		case f := <-failed:
			return f
		case <-time.After(time.Second):
		}
	}
	return err
}

// close waits until every learner of the node is done with the arena, stops
// the producer if it is still running (the learners stopped early), and
// frees the leader's resources.
func (ld *leader) close(ctx context.Context) error {
	waitErr := ld.server.WaitLearners(ctx)
	ld.closing.Store(true)
	ld.cancel()
	<-ld.done
	err := ld.err
	if errors.Is(err, context.Canceled) {
		err = nil // stopped by us, after every learner had finished
	}
	if waitErr != nil && err == nil {
		err = waitErr
	}
	for _, closer := range []func() error{ld.server.Close, ld.fetch.close, ld.seg.Close} {
		if e := closer(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// newLeader prepares the node reader: its fetcher, the shared-memory arena
// and the socket the node's learners connect to. Nothing runs yet.
func newLeader(ds *dataset, plan *assign.Sequential, opt Options, maxLearners int) (*leader, error) {
	t := opt.Topology
	ld := &leader{opt: opt, ds: ds, failed: make(chan error, 1), done: make(chan struct{}), cancel: func() {}}
	ld.sched = newSchedule(plan, t.Node, t.LocalSize, ds, opt, maxLearners)
	var err error
	if ld.fetch, err = newFetcher(ds, opt); err != nil {
		return nil, err
	}
	if err := ld.openArena(); err != nil {
		ld.fetch.close()
		return nil, err
	}
	ld.server, err = ring.Listen(ring.SocketName(shm.JobID(), t.Node, os.Getpid()), t.LocalSize)
	if err != nil {
		ld.fetch.close()
		ld.seg.Unlink()
		ld.seg.Close()
		return nil, err
	}
	if opt.Mode.STAG && t.Leaders != nil {
		ld.stag = reader.NewStagger(t.Leaders, opt.Stagger)
	}
	return ld, nil
}

func newFetcher(ds *dataset, opt Options) (fetcher, error) {
	if !opt.Mode.PROV {
		return openCursorFetcher(ds, opt)
	}
	rd, err := reader.Open(ds.Path, opt.Direct)
	if err != nil {
		return nil, err
	}
	return &provFetcher{idx: ds.index, rd: rd, opt: opt}, nil
}

// openArena creates the node's shared-memory arena, after removing segments
// that crashed runs left behind.
func (ld *leader) openArena() error {
	_, _ = shm.SweepStale("")
	size := arenaSize(ld)
	seg, err := shm.Create(shm.Name(shm.JobID(), fmt.Sprintf("node%d", ld.opt.Topology.Node)), size)
	if err != nil {
		return err
	}
	ld.seg, ld.buf, ld.arena = seg, seg.Bytes(), newArena(size)
	ld.fetch.attach(ld.arena, ld.buf)
	return nil
}
