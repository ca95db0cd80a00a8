package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/lmdbio/lmdbio/internal/exchange"
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

// leader is the node reader: it owns the node's part of the run — the
// learners' socket and shared memory, the storage turns, the exchange with
// the other node readers — and runs its stages: the producer of its
// pipeline (see producer) plans windows and starts their reads, the I/O
// workers read, the decoders decode, the exchanger trades records, and the
// sender hands each batch out once what it needs is there.
type leader struct {
	*nodeParts
	prod     producer // the pipeline's; nil only when prepare failed
	learners int
	readers  int   // node readers on this host (virtual nodes share one)
	sizes    []int // learners of every node

	server   *handoff.Server
	seq      int64 // which loader of this process: 1 for the first opened
	stag     *reader.Stagger
	xchg     *exchange.Exchanger // nil when no records cross between nodes
	xchgComm *mpi.Comm
	holds    *holdings

	ctx     context.Context    // the producer's; ended by cancel
	cancel  context.CancelFunc // stops the producer
	failed  chan error         // the first learner failure, from watch
	done    chan struct{}      // closed when run has ended
	started atomic.Bool        // run was started
	err     error              // why run ended; set before done is closed
	closing atomic.Bool        // Close stopped the producer: not a failure
	allSent atomic.Bool        // every batch and the last EndOfEpoch went out
}

// newLeader prepares the node reader: its plan, the shared memory and the
// socket the node's learners connect to. Nothing runs yet. It is step 4 of
// Open (see open.go), collective over the node readers (leaders): every
// step that one of them may fail is followed by an agreement (the source's
// arrival and prepare's by agreeViews, the memory's by connectReaders'),
// so none is left waiting in a later collective for one that failed. A
// failure of the last step, the shared memory, is this node's own: the
// caller agrees on it over the world. err is this node reader's failure in
// the steps before (see opening), which the others learn of at its first
// agreement.
func newLeader(t *topology.Topology, leaders collective, ds *dataset, opt Options, n *nodes, err error) (*leader, error) {
	parts := &nodeParts{opt: opt, ds: ds, node: t.Node, rd: n.probe, pin: noPin{}, stats: newRunStats()}
	parts.opt.Direct = opt.Direct || n.direct
	ld := &leader{nodeParts: parts, learners: n.sizes[t.Node], readers: n.readers, sizes: n.sizes,
		failed: make(chan error, 1), done: make(chan struct{}), holds: newHoldings(n.sizes[t.Node])}
	ld.ctx, ld.cancel = context.WithCancel(context.Background())
	if err == nil {
		err = ld.prepare()
	}
	if err = ld.agreeViews(leaders, err); err != nil {
		ld.closeParts()
		return nil, err
	}
	var capacity, spare int64
	if err == nil {
		capacity, spare, err = ld.prod.memory()
	}
	if err = ld.connectReaders(t, leaders, capacity, spare, err); err == nil {
		err = ld.openShared(t)
	}
	if err != nil {
		ld.closeParts()
		return nil, err
	}
	return ld, nil
}

// prepare does what needs no other node: the plan and the producer of the
// pipeline, the data file, the pin of its snapshot, and whether learners
// may view the file. The file is opened and its snapshot pinned while the
// plan is worked out: on a parallel file system each open is a round trip
// to its servers.
func (ld *leader) prepare() error {
	if !ld.opt.Mode.PROV {
		p, err := newCursorProducer(ld.nodeParts, ld.sizes)
		if err != nil {
			return err // no producer: a nil *cursorProducer in ld.prod would not be nil
		}
		ld.prod = p
		return nil
	}
	opened := make(chan error, 1)
	go func() { opened <- ld.openData() }()
	plan, err := newRunPlan(ld.ds.src, ld.opt, ld.sizes, ld.node)
	if e := <-opened; err == nil {
		err = e
	}
	if plan != nil {
		ld.prod = newIndexProducer(ld.nodeParts, plan, ld.learners, ld.readers)
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
	p, err := pinSnapshot(ld.ds)
	if err != nil {
		return err // ld.pin stays noPin{}: closeParts calls its close
	}
	ld.pin = p
	return nil
}

// connectReaders agrees on err, the outcome of the steps before, and tells
// every node reader the others' cache capacities and the memory they have
// to spare; it makes the exchange's communicator and the stagger. One
// allreduce carries it all, the stagger's generation too. Collective over
// leaders.
func (ld *leader) connectReaders(t *topology.Topology, leaders collective, capacity, spare int64, err error) error {
	mine := readerReport{capacity: capacity, spare: spare}
	if ld.opt.Mode.STAG {
		mine.generation = reader.NextGeneration()
	}
	all, err := agreeReaders(leaders, t, mine, err)
	if err != nil {
		return err
	}
	openExchange := func() error {
		comm, err := leaders.Split(0, leaders.Rank())
		if err != nil {
			return err
		}
		x, err := newExchanger(comm, ld.opt.Prefetch+2)
		if err != nil {
			_ = comm.Free()
			return err
		}
		ld.xchgComm, ld.xchg = comm, x
		return nil
	}
	if err := ld.prod.join(all.capacities, all.spare, openExchange); err != nil {
		return err
	}
	if ld.opt.Mode.STAG {
		// Tokens travel on the node readers' communicator, with tags of
		// this loader's generation: those of loaders open at once, or left
		// in flight by one that stopped early, are never taken for its own.
		if s := reader.NewStaggerAt(t.Leaders, ld.opt.Stagger, all.generation, ld.ctx.Done()); s.Enabled() {
			ld.stag = s
		}
	}
	return nil
}

// openShared creates the arena, the cache and the learners' socket.
func (ld *leader) openShared(t *topology.Topology) error {
	_, _ = shm.SweepStale("") // segments of crashed runs of earlier versions
	seg, err := shm.CreateUnnamed(shm.JobID(), ld.prod.arenaBytes(), true)
	if err != nil {
		return err
	}
	ld.seg, ld.buf, ld.arena = seg, seg.Bytes(), newArena(int64(len(seg.Bytes())))
	ld.arena.reserve = seg.Reserve
	if err := ld.prod.attach(shm.JobID()); err != nil {
		return err
	}
	// One socket per loader: a process may hold several (a training and a
	// validation set).
	ld.seq = loaders.Add(1)
	job := fmt.Sprintf("%s.%d", shm.JobID(), ld.seq)
	ld.server, err = handoff.Listen(handoff.SocketName(job, t.Node, os.Getpid()), ld.learners)
	return err
}

// files are the segments the learners map, in segment order: the arena,
// the producer's (the cache if there is one), the data file when they view
// it.
func (ld *leader) files() []*os.File {
	files := append([]*os.File{ld.seg.File()}, ld.prod.segments()...)
	if ld.view != nil {
		files = append(files, ld.view.file)
	}
	return files
}

// viewSegment is the segment number of the data file for the learners.
func (ld *leader) viewSegment() uint32 { return uint32(len(ld.files()) - 1) }

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
		if e := ld.stag.Abandon(ld.prod.turns()); e != nil && err == nil {
			err = e
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, reader.ErrStopped) || errors.Is(err, errStopped) {
		err = nil // stopped by us, after every learner had finished
	}
	if waitErr != nil && err == nil {
		// Most often the learners are closing another loader first.
		err = fmt.Errorf("closing loader %d of this process (numbered in the order they were opened): %w; "+
			"every rank must close its loaders in the same order", ld.seq, waitErr)
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
	ld.xchg.AnnounceStop()
	select {
	case <-ld.done:
	case <-ld.xchg.Stopped():
	case <-ctx.Done():
	}
	ld.cancel()
}

// closeParts frees what newLeader made. After dropped sends (see
// sendsDropped) the memory MPI may still read from stays mapped.
func (ld *leader) closeParts() error {
	closers := []func() error{ld.closeServer, ld.closeProducer, ld.closeData}
	if !ld.sendsDropped() {
		closers = append(closers, ld.closeArena, ld.closeView)
	}
	closers = append(closers, ld.pin.close, ld.closeExchanger)
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

// closeProducer frees what the producer made; after dropped sends its
// shared memory stays mapped, as the arena does.
func (ld *leader) closeProducer() error {
	if ld.prod == nil {
		return nil
	}
	return ld.prod.close(ld.sendsDropped())
}

func (ld *leader) closeData() error {
	if ld.rd == nil {
		return nil
	}
	return ld.rd.Close()
}

func (ld *leader) closeArena() error {
	if ld.seg == nil {
		return nil
	}
	return ld.seg.Close()
}

// sendsDropped reports whether the exchanger gave up on sends of an
// exchange that failed (see Exchanger.Dropped). MPI may still read them, from
// the arena, the cache or the data file's mapping, and still hold the
// exchange's communicator: all stay until the process ends (freeing the
// communicator then made Open MPI crash in a later call).
func (ld *leader) sendsDropped() bool { return ld.xchg != nil && ld.xchg.Dropped() }

// closeExchanger frees the exchange's buffers and communicator, once no
// exchange is under way.
func (ld *leader) closeExchanger() error {
	if ld.xchg != nil {
		ld.xchg.Close()
	}
	if ld.xchgComm == nil || ld.xchg.SendsLetGo() {
		return nil // sends let go of may still use it
	}
	err := ld.xchgComm.Free()
	ld.xchgComm = nil
	return err
}
