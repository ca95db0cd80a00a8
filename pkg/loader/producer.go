package loader

import (
	"context"
	"os"

	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/internal/shm"
)

// producer makes the windows of a run: what the node reads, where it
// lands, and what each batch waits for. There is one implementation per
// pipeline, chosen once when the node reader is made (prepare): the index
// modes' (indexProducer: places from the index, node caches, exchanges
// between nodes) and the cursor modes' (cursorProducer: places from a
// cursor walk). The node reader (leader) owns everything else — the
// learners' socket, the stagger, the exchange's run, the sender — and
// never asks which pipeline it runs.
//
// A stage that works on a window's records after they arrive (the prep
// stage that decodes and augments images) is one more producer that wraps
// another: it takes the inner producer's windows and adds, per batch, its
// own completions to the needs and its output to the items.
//
// Its methods are called in this order: memory and join while Open's
// collectives run (join is collective over the node readers), then
// arenaBytes, attach and segments once this node's shared memory is made,
// configure for the learners' welcome; then, on the producer goroutine
// alone, firstEpoch, epochWindows and window; turns, stats and close at
// the end.
type producer interface {
	// memory decides the bytes a window takes, and this node's cache
	// capacity and the memory it leaves to spare (0 without caches).
	memory() (capacity, spare int64, err error)
	// join takes every node's capacity and spare memory, as all node
	// readers agreed on them; it calls openExchange, a collective, when
	// records cross between nodes.
	join(capacities, spare []int64, openExchange func() error) error
	// arenaBytes is the size of the arena the windows are laid out in.
	arenaBytes() int64
	// attach is called once the node's arena is made: the producer makes
	// the shared memory of its own.
	attach(job string) error
	// segments are the producer's own segments the learners map, after
	// the arena and before the data file.
	segments() []*os.File
	// configure fills in the pipeline's part of what the learners are
	// told of the run.
	configure(c *runConfig)

	// firstEpoch is the epoch the run starts in.
	firstEpoch() int
	// epochWindows prepares epoch e and returns its number of windows.
	epochWindows(e int) (int, error)
	// window makes window k of epoch e, number no of the run, and queues
	// its reads, decodes and exchanges on q. It calls acquire once, right
	// before it touches storage: staggering waits there for the node's
	// turn.
	window(ctx context.Context, e, k, no int, acquire func() error, q queues) (*window, error)
	// turns is the number of storage turns of the whole run.
	turns() int

	// readStats are the reads that reached storage.
	readStats() reader.Stats
	// close frees what the producer made; with keepMemory it leaves its
	// shared memory mapped (MPI may still read from it).
	close(keepMemory bool) error
}

// queues are the work a producer hands to the node reader's workers.
type queues struct {
	io     chan<- storageRead
	decode chan<- *decode
	xchg   chan<- *exchangeOp
}

// produce makes the windows of every epoch in order with the pipeline's
// producer and queues each for the sender, then an end-of-epoch marker;
// with staggering it waits for each window's storage turn to be passed on
// before the next.
func (ld *leader) produce(ctx context.Context, q queues, pending chan<- *window) error {
	no := 0
	for e := ld.prod.firstEpoch(); e < ld.opt.Epochs; e++ {
		windows, err := ld.prod.epochWindows(e)
		if err != nil {
			return err
		}
		for k := range windows {
			if ld.stopAgreed() {
				return nil
			}
			w, err := ld.prod.window(ctx, e, k, no, ld.acquire(no), q)
			if err != nil {
				return err
			}
			no++
			if err := sendCtx(ctx, pending, w); err != nil {
				return err
			}
			if err := ld.waitTurnPassed(ctx, w); err != nil {
				return err
			}
		}
		if err := sendCtx(ctx, pending, &window{epoch: e, endOfEpoch: true}); err != nil {
			return err
		}
	}
	return nil
}

// nodeParts is what the node reader owns and lends to its producer: the
// options and dataset, the data file it reads, the arena and the other
// memory the learners map, the snapshot's pin and the run's figures.
type nodeParts struct {
	opt   Options
	ds    *dataset
	node  int
	rd    *reader.SpanReader // the data file, index modes
	seg   *shm.Segment       // the arena
	buf   []byte             // the arena's bytes
	arena *arena
	view  *fileView // the data file, mapped, when learners view it
	pin   snapshotPin
	stats *runStats
}
