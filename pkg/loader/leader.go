package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lmdbio/lmdbio/internal/handoff"
	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/internal/shm"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// loaders numbers the loaders this process opens.
var loaders atomic.Int64

// acceptTimeout bounds how long a node leader waits for its learners to
// connect; a learner that never comes is a launch problem, not a reason to hang.
const acceptTimeout = 60 * time.Second

// leader is the node reader: it loads the node's blocks into the arena and
// the cache, exchanges records with the other node readers, and tells each
// learner where its batches are.
type leader struct {
	opt      Options
	ds       *dataset
	node     int
	learners int
	readers  int   // node readers on this host (virtual nodes share one)
	sizes    []int // learners of every node

	plan           *runPlan      // PROV modes
	fetch          fetcher       // cursor modes
	sched          fixedSchedule // cursor modes
	rd             *reader.SpanReader
	seg            *shm.Segment // the arena
	buf            []byte       // the arena's bytes
	view           *fileView    // the data file, mapped, when learners view it
	arena          *arena
	slot           int64 // arena bytes per window
	cache          *nodeCache
	server         *handoff.Server
	stag           *reader.Stagger
	xchg           *exchanger
	xchgComm       *mpi.Comm
	early          *early // nil without an early exchange
	guard          guard
	holds          *holdings
	stats          *runStats
	nextID         uint64
	filledAll      bool
	pendingDecodes []*decode

	ctx     context.Context    // the producer's; ended by cancel
	cancel  context.CancelFunc // stops the producer
	failed  chan error         // the first learner failure, from watch
	done    chan struct{}      // closed when run has ended
	started atomic.Bool        // run was started
	err     error              // why run ended; set before done is closed
	closing atomic.Bool        // Close stopped the producer: not a failure
	allSent atomic.Bool        // every batch and the last EndOfEpoch went out
}

// fetcher fills windows into the arena in the cursor modes.
type fetcher interface {
	// fetch takes arena room for window w and fills in w.items and, when
	// storage reads remain to be done, w.loads and w.needs. It calls acquire
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

// newLeader prepares the node reader: its plan, the shared memory and the
// socket the node's learners connect to. Nothing runs yet. It is
// collective over the node readers (t.Leaders): every step that one of them
// may fail is followed by an agreement (prepare's by agreeViews where a node
// may view the file, else by connectReaders'), so none is left waiting in a
// later collective for one that failed. A failure of the last step, the
// shared memory, is this node's own: the caller agrees on it over the world.
func newLeader(t *topology.Topology, ds *dataset, opt Options, n *nodes) (*leader, error) {
	ld := &leader{opt: opt, ds: ds, node: t.Node, learners: n.sizes[t.Node], readers: n.readers, sizes: n.sizes,
		rd: n.probe, failed: make(chan error, 1), done: make(chan struct{}), holds: newHoldings(n.sizes[t.Node]),
		guard: noGuard{}, stats: newRunStats()}
	ld.opt.Direct = ld.opt.Direct || n.direct
	ld.ctx, ld.cancel = context.WithCancel(context.Background())
	err := ld.prepare()
	if ld.mayView() {
		if err = ld.agreeViews(t, err); err != nil {
			ld.closeParts()
			return nil, err
		}
	}
	var capacity, spare int64
	if ld.plan != nil && err == nil {
		if err = ld.sizeArena(); err == nil {
			capacity, spare, err = ld.cacheCapacity(ld.readers)
		}
	}
	if err = ld.connectReaders(t, capacity, spare, err); err == nil {
		err = ld.openShared(t)
	}
	if err != nil {
		ld.closeParts()
		return nil, err
	}
	return ld, nil
}

// prepare does what needs no other node: the plan, the data file, the
// guard of its snapshot, and whether learners may view the file. The
// file is opened and its snapshot pinned while the plan is worked out:
// on a parallel file system each open is a round trip to its servers.
func (ld *leader) prepare() error {
	if !ld.opt.Mode.PROV {
		ld.sched = newFixedSchedule(ld.ds, ld.opt, ld.sizes, ld.node)
		if ld.sched.err != nil {
			return ld.sched.err
		}
		f, err := openCursorFetcher(ld.ds, ld.opt)
		if err != nil {
			return err // no fetcher: a nil *cursorFetcher in ld.fetch would not be nil
		}
		ld.fetch = f
		return nil
	}
	opened := make(chan error, 1)
	go func() { opened <- ld.openData() }()
	var err error
	ld.plan, err = newRunPlan(ld.ds.src, ld.opt, ld.sizes, ld.node)
	if e := <-opened; err == nil {
		err = e
	}
	if err == nil && ld.viewable() {
		ld.view, err = openView(ld.ds.Path)
	}
	return err
}

// openData opens the data file, unless agreeOptions opened it for direct
// I/O, and pins the snapshot it reads.
func (ld *leader) openData() (err error) {
	if ld.rd == nil {
		if ld.rd, err = reader.Open(ld.ds.Path, ld.opt.Direct); err != nil {
			return err
		}
	}
	g, err := openGuard(ld.ds)
	if err != nil {
		return err // ld.guard stays noGuard{}: closeParts calls its close
	}
	ld.guard = g
	return nil
}

// connectReaders agrees on err, the outcome of the steps before, and tells
// every node reader the others' cache capacities and the memory they have
// to spare; it makes the exchange's communicator and the stagger. One
// allreduce carries it all, the stagger's generation too. Collective over
// t.Leaders.
func (ld *leader) connectReaders(t *topology.Topology, capacity, spare int64, err error) error {
	vals := make([]int64, 2*t.Nodes+1) // capacities, spare room (each node fills its own), the generation
	vals[t.Node], vals[t.Nodes+t.Node] = capacity, spare
	if ld.opt.Mode.STAG {
		vals[2*t.Nodes] = int64(reader.NextGeneration())
	}
	all, err := agreeMax(t.Leaders, err, vals)
	if err != nil {
		return err
	}
	if ld.plan != nil {
		ld.plan.setCaches(all[:t.Nodes])
		ld.cache = newNodeCache(ld.plan.cache, ld.ds.src.Blocks(), ld.ds.src.Decoder() != nil)
		if ld.exchanges() {
			comm, err := t.Leaders.Split(0, t.Leaders.Rank())
			if err != nil {
				return err
			}
			x, err := newExchanger(comm, ld.opt.Prefetch+2)
			if err != nil {
				_ = comm.Free()
				return err
			}
			ld.xchgComm, ld.xchg = comm, x
			if err := ld.planEarly(all[t.Nodes : 2*t.Nodes]); err != nil {
				return err
			}
		}
	}
	if ld.opt.Mode.STAG {
		// Tokens travel on the node readers' communicator, with tags of
		// this loader's generation: those of loaders open at once, or left
		// in flight by one that stopped early, are never taken for its own.
		if s := reader.NewStaggerAt(t.Leaders, ld.opt.Stagger, uint64(all[2*t.Nodes]), ld.ctx.Done()); s.Enabled() {
			ld.stag = s
		}
	}
	return nil
}

// exchanges reports whether records may cross between nodes: with the
// world-independent shuffles on more than one node.
func (ld *leader) exchanges() bool {
	return ld.plan != nil && ld.plan.sched.Nodes > 1 && !ld.plan.sched.Local
}

// openShared creates the arena, the cache and the learners' socket.
func (ld *leader) openShared(t *topology.Topology) error {
	_, _ = shm.SweepStale("") // segments of crashed runs of earlier versions
	seg, err := shm.CreateUnnamed(shm.JobID(), ld.arenaBytes(), true)
	if err != nil {
		return err
	}
	ld.seg, ld.buf, ld.arena = seg, seg.Bytes(), newArena(int64(len(seg.Bytes())))
	ld.arena.reserve = seg.Reserve
	if ld.fetch != nil {
		ld.fetch.attach(ld.arena, ld.buf)
	}
	if ld.cache != nil {
		if err := ld.cache.open(shm.JobID(), ld.early.room()); err != nil {
			return err
		}
	}
	// One socket per loader: a process may hold several (a training and a
	// validation set).
	job := fmt.Sprintf("%s.%d", shm.JobID(), loaders.Add(1))
	ld.server, err = handoff.Listen(handoff.SocketName(job, t.Node, os.Getpid()), ld.learners)
	return err
}

// arenaBytes is the shared memory of the arena: Prefetch windows being read
// ahead plus the one the learners consume.
func (ld *leader) arenaBytes() int64 {
	if ld.plan == nil {
		return ld.sched.arenaBytes(ld.fetch, ld.ds, ld.opt)
	}
	return int64(ld.opt.Prefetch+1)*roundUp(ld.slot+alignment, alignment) + alignment
}

// files are the segments the learners map, in segment order: the arena,
// the cache if there is one, the data file when they view it.
func (ld *leader) files() []*os.File {
	files := []*os.File{ld.seg.File()}
	if ld.cache != nil && ld.cache.seg != nil {
		files = append(files, ld.cache.seg.File())
	}
	if ld.view != nil {
		files = append(files, ld.view.file)
	}
	return files
}

// viewSegment is the segment number of the data file for the learners.
func (ld *leader) viewSegment() uint32 { return uint32(len(ld.files()) - 1) }

// run produces every epoch, then ends. The parts work at once: the producer
// plans windows and takes arena room, the I/O workers keep IODepth reads
// in flight, the decoders decode, the exchanger trades records with the
// other nodes, the releaser passes the storage turn on when a window's
// reads are done, and the sender hands each batch out as soon as what it
// needs is there. On failure the learners are told why.
func (ld *leader) run(ctx context.Context) {
	defer close(ld.done)
	ioq := make(chan storageRead, 1024)
	decq := make(chan *decode, 1024)
	xq := (chan *exchangeOp)(nil)
	pending := make(chan *window, ld.opt.Prefetch+1)
	turns := make(chan *window, ld.opt.Prefetch+2)
	settle := make(chan *window, ld.opt.Prefetch+2)
	var workers, helpers sync.WaitGroup
	for range ld.opt.IODepth {
		workers.Go(func() {
			for l := range ioq {
				l.run(ctx)
			}
		})
	}
	for range decodeWorkers() {
		workers.Go(func() {
			for d := range decq {
				d.run(ctx)
			}
		})
	}
	var xchgErr, sendErr, turnErr error
	if ld.xchg != nil {
		xq = ld.xchg.ops
		helpers.Go(func() {
			if xchgErr = ld.xchg.run(ctx); xchgErr != nil {
				ld.stop(xchgErr)
			}
		})
	}
	helpers.Go(func() {
		if turnErr = ld.passTurns(ctx, turns); turnErr != nil {
			ld.stop(turnErr)
		}
	})
	helpers.Go(func() { ld.settle(ctx, settle) })
	helpers.Go(func() {
		if sendErr = ld.send(ctx, pending, turns, settle); sendErr != nil {
			ld.stop(sendErr)
		}
	})
	var err error
	if ld.plan != nil {
		err = ld.produceScheduled(ctx, queues{io: ioq, decode: decq, xchg: xq}, pending)
	} else {
		err = ld.produceCursor(ctx, ioq, pending)
	}
	close(pending)
	if xq != nil {
		close(xq)
	}
	helpers.Wait()
	close(ioq)
	close(decq)
	workers.Wait()
	for _, e := range []error{sendErr, xchgErr, turnErr} {
		if err == nil || errors.Is(err, context.Canceled) && e != nil {
			err = e
		}
	}
	ld.err = ld.firstError(err)
	if ld.err != nil && !ld.closing.Load() {
		_ = ld.server.Fail(ld.err.Error(), IsBadInput(ld.err))
	}
	if ld.xchg != nil && failedHere(ld.err) {
		// Even when its own learners have all gone (each may have found
		// the fault itself), the other node readers may be waiting for
		// this one in an exchange.
		ld.xchg.notify(ld.err)
	}
}

// failedHere reports whether err, how a node reader's run ended, is a
// failure on this node: not a stop that every node reader agreed on or that
// Close asked for, and not another node's failure.
func failedHere(err error) bool {
	return err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, errStopped) &&
		!errors.Is(err, reader.ErrStopped) && !errors.Is(err, errNodeFailed)
}

// decodeWorkers is the number of goroutines decoding blocks.
func decodeWorkers() int { return max(2, runtimeCPUs()) }

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

// waitTurnPassed waits, with staggering, until window w's storage turn was
// passed on: the next turn comes after it.
func (ld *leader) waitTurnPassed(ctx context.Context, w *window) error {
	if ld.stag == nil {
		return nil
	}
	select {
	case <-w.released:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// passTurns passes each window's storage turn on once its reads are done,
// whatever the learners and the exchange do: another node's exchange of
// this window may wait for that node's reads, which wait for this turn.
func (ld *leader) passTurns(ctx context.Context, turns <-chan *window) error {
	for w := range turns {
		if ld.stag == nil {
			continue
		}
		for _, l := range w.loads {
			if err := l.wait(ctx); err != nil {
				return err
			}
		}
		if err := ld.stag.Release(w.no); err != nil {
			return fmt.Errorf("passing the storage token: %w", err)
		}
		close(w.released)
	}
	return nil
}

// settle frees each window's own hold on its arena room once its reads and
// its exchange are done.
func (ld *leader) settle(ctx context.Context, windows <-chan *window) {
	for w := range windows {
		for _, l := range w.loads {
			if l.wait(ctx) != nil {
				return
			}
		}
		if w.xchg != nil && w.xchg.wait(ctx) != nil {
			return
		}
		ld.release(w.hold)
	}
}

// send hands out each window's batches, each as soon as what it needs is
// there, and queues the window for its storage turn to be passed on and
// its room to be settled.
func (ld *leader) send(ctx context.Context, pending <-chan *window, turns, settle chan<- *window) error {
	defer close(turns)
	defer close(settle)
	for w := range pending {
		if w.endOfEpoch {
			for local := 0; local < ld.learners; local++ {
				err := ld.server.Send(local, handoff.EndOfEpoch{Epoch: uint32(w.epoch)})
				if err != nil && !errors.Is(err, handoff.ErrPeerClosed) {
					return err
				}
			}
			ld.allSent.Store(w.epoch == ld.opt.Epochs-1)
			continue
		}
		if err := sendCtx(ctx, turns, w); err != nil {
			return err
		}
		if err := sendCtx(ctx, settle, w); err != nil {
			return err
		}
		for i, b := range w.batches {
			for _, c := range w.needs[i] {
				if err := c.wait(ctx); err != nil {
					return err
				}
			}
			if err := ld.sendBatch(b.local, handoff.Batch{ID: w.ids[i], Epoch: uint32(w.epoch), Items: w.items[i]}); err != nil {
				return err
			}
		}
	}
	return nil
}

// sendBatch hands a batch to its learner, or straight back to the arena
// when the learner has closed.
func (ld *leader) sendBatch(local int, m handoff.Batch) error {
	if !ld.holds.give(local, m.ID) {
		ld.release(m.ID)
		return nil
	}
	err := ld.server.Send(local, m)
	if errors.Is(err, handoff.ErrPeerClosed) {
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

// stopAgreed reports whether the node readers agreed to stop early.
func (ld *leader) stopAgreed() bool {
	if ld.xchg == nil {
		return false
	}
	select {
	case <-ld.xchg.stopped:
		return true
	default:
		return false
	}
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

// start runs the node reader.
func (ld *leader) start() {
	if !ld.started.CompareAndSwap(false, true) {
		return // connect started it already
	}
	go ld.watch()
	go ld.run(ld.ctx)
}

// close waits until every learner of the node is done with the shared
// memory, stops the producer if it is still running (the learners stopped
// early) and frees the leader's resources. A node reader that never
// started (Open failed) only frees them.
func (ld *leader) close(ctx context.Context) error {
	if !ld.started.Load() {
		return ld.closeParts()
	}
	waitErr := ld.server.WaitLearners(ctx)
	ld.closing.Store(true)
	ld.stopEarly(ctx)
	<-ld.done
	err := ld.err
	if ld.stag != nil {
		// Stopped before the end: the other node readers must not wait for
		// turns this one will never take.
		if e := ld.stag.Abandon(ld.turns()); e != nil && err == nil {
			err = e
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, reader.ErrStopped) || errors.Is(err, errStopped) {
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

// stopEarly ends the producer once the learners have gone. Without an
// exchange it stops at once. With one, the other node readers may need this
// node's part of exchanges still to come: if the learners got everything,
// the node reader finishes its exchanges; if they stopped before the end,
// it says in its next exchange that it stops, and every node reader stops
// after that exchange.
func (ld *leader) stopEarly(ctx context.Context) {
	if ld.xchg == nil {
		ld.cancel()
		return
	}
	if ld.allSent.Load() {
		select {
		case <-ld.done:
		case <-ctx.Done():
		}
		ld.cancel()
		return
	}
	ld.xchg.closing.Store(true)
	select {
	case <-ld.done:
	case <-ld.xchg.stopped:
	case <-ctx.Done():
	}
	ld.cancel()
}

// turns is the number of storage turns of the whole run.
func (ld *leader) turns() int {
	if ld.plan == nil {
		return ld.opt.Epochs * ld.sched.windows()
	}
	return ld.plan.turns(ld.slot)
}

// closeParts frees what newLeader made. After dropped sends (see
// sendsDropped) the memory MPI may still read from stays mapped.
func (ld *leader) closeParts() error {
	closers := []func() error{ld.closeServer, ld.closeFetch}
	if !ld.sendsDropped() {
		closers = append(closers, ld.closeArena, ld.closeCache, ld.closeView)
	}
	closers = append(closers, ld.guard.close, ld.closeExchanger)
	var err error
	for _, closer := range closers {
		if e := closer(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

func (ld *leader) closeServer() error {
	if ld.server == nil {
		return nil
	}
	return ld.server.Close()
}

func (ld *leader) closeFetch() error {
	var err error
	if ld.fetch != nil {
		err = ld.fetch.close()
	}
	if ld.rd != nil {
		if e := ld.rd.Close(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

func (ld *leader) closeArena() error {
	if ld.seg == nil {
		return nil
	}
	return ld.seg.Close()
}

func (ld *leader) closeCache() error {
	if ld.cache == nil {
		return nil
	}
	return ld.cache.close()
}

// sendsDropped reports whether the exchanger gave up on sends of an
// exchange that failed (see exchanger.drop). MPI may still read them, from
// the arena, the cache or the data file's mapping, and still hold the
// exchange's communicator: all stay until the process ends (freeing the
// communicator then made Open MPI crash in a later call).
func (ld *leader) sendsDropped() bool { return ld.xchg != nil && ld.xchg.dropped }

// closeExchanger frees the exchange's buffers and communicator, once no
// exchange is under way.
func (ld *leader) closeExchanger() error {
	if ld.xchg != nil {
		ld.xchg.stopListening()
		ld.xchg.free()
		ld.xchg.free = func() {}
	}
	if ld.xchgComm == nil || ld.xchg.sendsLetGo() {
		return nil // sends let go of may still use it
	}
	err := ld.xchgComm.Free()
	ld.xchgComm = nil
	return err
}
