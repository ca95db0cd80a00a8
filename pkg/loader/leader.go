package loader

import (
	"context"
	"errors"
	"fmt"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lmdbio/lmdbio/pkg/lmdbpin"
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
	opt      Options
	ds       *dataset
	sched    schedule
	seg      *shm.Segment
	buf      []byte // the arena's bytes in this process
	arena    *arena
	server   *ring.Server
	fetch    fetcher
	stag     *reader.Stagger
	stagComm *mpi.Comm // the node readers' communicator for stagger tokens
	holds    *holdings

	ctx context.Context // the producer's; ended by cancel

	cancel  context.CancelFunc // stops the producer
	failed  chan error         // the first learner failure, from watch
	done    chan struct{}      // closed when the producer has ended
	err     error              // why it ended; set before done is closed
	closing atomic.Bool        // Close stopped the producer: not a failure
}

// fetcher fills windows into the arena: the part of the node reader that
// differs between modes.
type fetcher interface {
	// fetch takes arena room for window w and fills in w.items and, when
	// storage reads remain to be done, w.reads and w.needs. It calls acquire
	// once, right before it touches storage: staggering waits there for the
	// node's turn.
	fetch(ctx context.Context, w *window, acquire func() error) error
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

// run produces every epoch, then ends. Three parts work at once: the
// producer plans windows and takes arena room, the I/O workers keep
// IODepth reads in flight, and the sender hands each batch out as soon as
// its reads are done. On failure the learners are told why.
func (ld *leader) run(ctx context.Context) {
	defer close(ld.done)
	ioq := make(chan *spanRead, 256)
	pending := make(chan *window, ld.opt.Prefetch+1)
	var workers, sender sync.WaitGroup
	for range ld.opt.IODepth {
		workers.Go(func() {
			for r := range ioq {
				r.run(ctx)
			}
		})
	}
	var sendErr error
	sender.Go(func() {
		if sendErr = ld.send(ctx, pending); sendErr != nil {
			ld.stop(sendErr)
		}
	})
	err := ld.produce(ctx, ioq, pending)
	close(ioq)
	close(pending)
	sender.Wait()
	workers.Wait()
	if err == nil || errors.Is(err, context.Canceled) && sendErr != nil {
		err = sendErr
	}
	ld.err = ld.firstError(err)
	if ld.err != nil && !ld.closing.Load() {
		_ = ld.server.Fail(ld.err.Error())
	}
}

// produce fetches the windows of every epoch in order and queues their reads
// and their hand-out.
func (ld *leader) produce(ctx context.Context, ioq chan<- *spanRead, pending chan<- *window) error {
	var nextID uint64
	no := 0
	for epoch := 0; epoch < ld.opt.Epochs; epoch++ {
		for i := 0; i < ld.sched.windows(); i++ {
			w := &window{epoch: epoch, no: no, batches: ld.sched.window(epoch, i), released: make(chan struct{})}
			no++
			w.ids = make([]uint64, len(w.batches))
			for j := range w.ids {
				nextID++
				w.ids[j] = nextID
			}
			w.items, w.needs = make([][]ring.Item, len(w.batches)), make([][]*spanRead, len(w.batches))
			if err := ld.fetch.fetch(ctx, w, ld.acquire(w.no)); err != nil {
				return err
			}
			for _, r := range w.reads {
				if err := sendCtx(ctx, ioq, r); err != nil {
					return err
				}
			}
			if err := sendCtx(ctx, pending, w); err != nil {
				return err
			}
			if ld.stag != nil { // the next turn on storage comes after this one is passed on
				select {
				case <-w.released:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}
		if err := sendCtx(ctx, pending, &window{epoch: epoch, endOfEpoch: true}); err != nil {
			return err
		}
	}
	return nil
}

// acquire returns the function that waits for the node's turn on storage
// for window no.
func (ld *leader) acquire(no int) func() error {
	if ld.stag == nil {
		return func() error { return nil }
	}
	return func() error {
		if err := ld.stag.Acquire(no); err != nil {
			return fmt.Errorf("waiting for the storage token: %w", err)
		}
		return nil
	}
}

// send hands out each window's batches, each as soon as the reads it needs
// are done, then passes the storage turn on.
func (ld *leader) send(ctx context.Context, pending <-chan *window) error {
	for w := range pending {
		if w.endOfEpoch {
			for local := 0; local < ld.sched.learners; local++ {
				err := ld.server.Send(local, ring.EndOfEpoch{Epoch: uint32(w.epoch)})
				if err != nil && !errors.Is(err, ring.ErrPeerClosed) {
					return err
				}
			}
			continue
		}
		for i, b := range w.batches {
			for _, r := range w.needs[i] {
				if err := r.wait(ctx); err != nil {
					return err
				}
			}
			if err := ld.sendBatch(b.local, ring.Batch{ID: w.ids[i], Epoch: uint32(w.epoch), Items: w.items[i]}); err != nil {
				return err
			}
		}
		if ld.stag != nil {
			for _, r := range w.reads {
				if err := r.wait(ctx); err != nil {
					return err
				}
			}
			if err := ld.stag.Release(w.no); err != nil {
				return fmt.Errorf("passing the storage token: %w", err)
			}
			close(w.released)
		}
	}
	return nil
}

// sendBatch hands a batch to its learner, or straight back to the arena
// when the learner has closed.
func (ld *leader) sendBatch(local int, m ring.Batch) error {
	if !ld.holds.give(local, m.ID) {
		ld.release(m.ID)
		return nil
	}
	err := ld.server.Send(local, m)
	if errors.Is(err, ring.ErrPeerClosed) {
		if give, _ := ld.holds.take(local, m.ID); give { // unless the Bye already returned it
			ld.release(m.ID)
		}
		return nil
	}
	return err
}

// sendCtx sends v on c unless ctx ends first.
func sendCtx[T any](ctx context.Context, c chan<- T, v T) error {
	select {
	case c <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watch frees arena space as learners release batches, and stops the
// producer at the first learner that fails. It runs until the server closes.
func (ld *leader) watch() {
	releases, byes, errs := ld.server.Releases(), ld.server.Byes(), ld.server.Errors()
	for releases != nil || byes != nil || errs != nil {
		select {
		case r, ok := <-releases:
			if !ok {
				releases = nil
			} else if give, err := ld.holds.take(r.Learner, r.ID); err != nil {
				ld.stop(err)
			} else if give {
				ld.release(r.ID)
			}
		case local, ok := <-byes:
			if !ok {
				byes = nil
				continue
			}
			for _, id := range ld.holds.close(local) {
				ld.release(id)
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

// release returns a batch's arena room.
func (ld *leader) release(id uint64) {
	if err := ld.arena.release(id); err != nil {
		ld.stop(err)
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
func (ld *leader) firstError(err error) error {
	failed := ld.failed
	select {
	case f := <-failed:
		return f
	default:
	}
	if errors.Is(err, context.Canceled) {
		if ld.closing.Load() {
			return err
		}
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
	if ld.stag != nil {
		// Stopped before the end: the other node readers must not wait for
		// turns this one will never take.
		if e := ld.stag.Abandon(ld.opt.Epochs * ld.sched.windows()); e != nil && err == nil {
			err = e
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, reader.ErrStopped) {
		err = nil // stopped by us, after every learner had finished
	}
	if waitErr != nil && err == nil {
		err = waitErr
	}
	if e := ld.closeParts(); e != nil && err == nil {
		err = e
	}
	return err
}

// closeParts frees what newLeader made.
func (ld *leader) closeParts() error {
	var err error
	for _, closer := range []func() error{ld.server.Close, ld.fetch.close, ld.seg.Close, ld.freeStagComm} {
		if e := closer(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// freeStagComm drops the token communicator without MPI_Comm_free when
// tokens may still be in flight: the library could then reuse its context
// for a later communicator, and a receive it still holds for this one could
// take a later loader's token. One communicator per loader is kept instead.
func (ld *leader) freeStagComm() error {
	if ld.stagComm == nil {
		return nil
	}
	var err error
	if ld.stag == nil || ld.stag.Finished() {
		err = ld.stagComm.Free()
	}
	ld.stagComm = nil
	return err
}

// newLeader prepares the node reader: its fetcher, the shared-memory arena
// and the socket the node's learners connect to. Nothing runs yet.
func newLeader(ds *dataset, plan *assign.Sequential, opt Options, maxLearners int) (*leader, error) {
	t := opt.Topology
	ld := &leader{opt: opt, ds: ds, failed: make(chan error, 1), done: make(chan struct{}), holds: newHoldings(t.LocalSize)}
	ld.ctx, ld.cancel = context.WithCancel(context.Background())
	ld.sched = newSchedule(plan, t.Node, t.LocalSize, ds, opt, maxLearners)
	if opt.Mode.STAG && t.Leaders != nil {
		// Tokens travel on a communicator of this loader's own, so a token
		// left in flight by a loader that stopped early can never be taken
		// for one of this loader's. It is made first: Split is collective
		// over the node readers, and a reader failing below must not leave
		// the others waiting in it.
		stagComm, err := t.Leaders.Split(0, t.Leaders.Rank())
		if err != nil {
			return nil, err
		}
		ld.stagComm = stagComm
		s, err := reader.NewStagger(stagComm, opt.Stagger, ld.ctx.Done())
		if err != nil {
			ld.freeStagComm()
			return nil, err
		}
		if s.Enabled() {
			ld.stag = s
		}
	}
	var err error
	if ld.fetch, err = newFetcher(ds, opt); err != nil {
		ld.freeStagComm()
		return nil, err
	}
	if err := ld.openArena(); err != nil {
		ld.fetch.close()
		ld.freeStagComm()
		return nil, err
	}
	ld.server, err = ring.Listen(ring.SocketName(shm.JobID(), t.Node, os.Getpid()), t.LocalSize)
	if err != nil {
		ld.fetch.close()
		ld.seg.Unlink()
		ld.seg.Close()
		ld.freeStagComm()
		return nil, err
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
	pin, err := lmdbpin.Open(ds.Path, ds.index.Identity().TxnID)
	if err != nil {
		rd.Close()
		return nil, err
	}
	return &provFetcher{idx: ds.index, src: ds.index.Source(ds.Path), pin: pin, rd: rd, opt: opt}, nil
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
