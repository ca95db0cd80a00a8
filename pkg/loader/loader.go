package loader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/reader"
	"github.com/lmdbio/lmdbio/pkg/ring"
	"github.com/lmdbio/lmdbio/pkg/shm"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// Batch is one learner's next records. Keys and Values are views into shared
// memory (or, in the lmdb mode, into liblmdb's map): they are valid until the
// learner's next call to Next or Close, and must not be written.
type Batch struct {
	Epoch   int
	Records []int // record numbers in the database's order
	Keys    [][]byte
	Values  [][]byte
}

// Loader delivers one learner's batches. It is used by one goroutine.
type Loader struct {
	opt   Options
	ds    *dataset
	plan  *assign.Sequential
	epoch int // the epoch Next is in

	// learner side, LMM modes
	seg     *shm.Segment
	client  *ring.Client
	held    uint64 // batch to release on the next call; 0 for none
	batch   Batch  // reused between calls
	lead    *leader
	caffe   *caffeReader
	closed  bool
	opening context.CancelFunc
}

// Open opens the dataset at path (an LMDB directory or its data.mdb) for
// every rank of opt.Topology. It is collective: every rank calls it with the
// same path and options, and every rank gets an error if any rank failed.
func Open(path string, opt Options) (*Loader, error) {
	if err := opt.setDefaults(); err != nil {
		return nil, err
	}
	t := opt.Topology
	ds, err := shareDataset(t, path, opt)
	if err != nil {
		return nil, err
	}
	sizes, err := nodeSizes(t)
	if err != nil {
		return nil, err
	}
	l := &Loader{opt: opt, ds: ds}
	if opt.Mode.Caffe {
		l.caffe, err = openCaffe(ds, opt, len(sizes))
		if err == nil {
			l.plan = l.caffe.plan
		}
		return l.afterOpen(agree(t.World, err))
	}
	l.plan, err = assign.NewSequential(assign.Layout{Records: ds.Records, Batch: opt.Batch,
		NodeSizes: sizes, Remainder: opt.Remainder})
	if err != nil {
		return nil, err // the same on every rank
	}
	err = l.connect(sizes)
	return l.afterOpen(agree(t.World, err))
}

func (l *Loader) afterOpen(err error) (*Loader, error) {
	if err != nil {
		l.Close()
		return nil, err
	}
	if l.lead != nil {
		go l.lead.watch()
		go l.lead.run(l.lead.ctx)
	}
	return l, nil
}

// nodeSizes counts the ranks of every node. Collective.
func nodeSizes(t *topology.Topology) ([]int, error) {
	mine := make([]int64, t.Nodes)
	if t.Leader() {
		mine[t.Node] = int64(t.LocalSize)
	}
	all := make([]int64, t.Nodes)
	if err := t.World.AllreduceInt64(mine, all, mpi.Sum); err != nil {
		return nil, err
	}
	sizes := make([]int, t.Nodes)
	for i, n := range all {
		sizes[i] = int(n)
	}
	return sizes, nil
}

// connect sets up the node: the leader creates the arena and the socket,
// the learners map the one and dial the other.
func (l *Loader) connect(sizes []int) error {
	t := l.opt.Topology
	type nodeInfo struct {
		Segment string `json:"segment"`
		Socket  string `json:"socket"`
	}
	var info nodeInfo
	var err error
	accepted := make(chan error, 1)
	if t.Leader() {
		maxLearners := 0
		for _, s := range sizes {
			maxLearners = max(maxLearners, s)
		}
		l.lead, err = newLeader(l.ds, l.plan, l.opt, maxLearners)
		if err == nil {
			info = nodeInfo{Segment: l.lead.seg.Name(), Socket: l.lead.server.Name()}
			go func() { accepted <- l.lead.server.Accept(context.Background(), acceptTimeout) }()
		}
	}
	payload, err := bcastStatus(t.Local, 0, t.Rank-t.LocalRank, err, info)
	if err != nil {
		return err
	}
	if !t.Leader() {
		if err := jsonUnmarshal(payload, &info); err != nil {
			return err
		}
	}
	if err = l.join(info.Segment, info.Socket); err == nil && t.Leader() {
		err = <-accepted
	}
	if err = agree(t.Local, err); err != nil {
		return err
	}
	if t.Leader() {
		// Every local process has the arena mapped: remove its name now, so
		// nothing is left in /dev/shm however the job ends.
		return l.lead.seg.Unlink()
	}
	return nil
}

// join maps the node's arena and connects to the node reader.
func (l *Loader) join(segment, socket string) error {
	var err error
	if l.lead != nil {
		l.seg = l.lead.seg
	} else if l.seg, err = shm.Open(segment); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), acceptTimeout)
	defer cancel()
	l.client, err = ring.Dial(ctx, socket, l.opt.Topology.LocalRank)
	return err
}

// Next returns the learner's next batch, or io.EOF at the end of an epoch.
// After the last epoch it keeps returning io.EOF. The previous batch's views
// become invalid.
func (l *Loader) Next(ctx context.Context) (Batch, error) {
	if l.closed {
		return Batch{}, errors.New("loader: Next after Close")
	}
	if l.caffe != nil {
		return l.caffe.next()
	}
	if l.held != 0 {
		if err := l.client.Release(l.held); err != nil {
			return Batch{}, err
		}
		l.held = 0
	}
	if l.epoch >= l.opt.Epochs {
		return Batch{}, io.EOF
	}
	m, err := l.client.Recv(ctx)
	if err != nil {
		return Batch{}, err
	}
	switch m := m.(type) {
	case ring.Batch:
		return l.views(m)
	case ring.EndOfEpoch:
		l.epoch++
		return Batch{}, io.EOF
	default:
		return Batch{}, fmt.Errorf("loader: node reader sent %v", m.Type())
	}
}

// views turns a batch descriptor into views of the arena.
func (l *Loader) views(m ring.Batch) (Batch, error) {
	arena := l.seg.Bytes()
	b := &l.batch
	b.Epoch = int(m.Epoch)
	b.Records, b.Keys, b.Values = b.Records[:0], b.Keys[:0], b.Values[:0]
	for _, it := range m.Items {
		if it.Offset+it.Length > int64(len(arena)) || it.KeyOffset+it.KeyLength > int64(len(arena)) {
			return Batch{}, fmt.Errorf("loader: batch %d places record %d outside the arena", m.ID, it.Record)
		}
		b.Records = append(b.Records, int(it.Record))
		b.Keys = append(b.Keys, arena[it.KeyOffset:it.KeyOffset+it.KeyLength:it.KeyOffset+it.KeyLength])
		b.Values = append(b.Values, arena[it.Offset:it.Offset+it.Length:it.Offset+it.Length])
	}
	l.held = m.ID
	return *b, nil
}

// Records is the number of records in the dataset.
func (l *Loader) Records() int { return l.ds.Records }

// Rounds is the number of batches every learner gets per epoch.
func (l *Loader) Rounds() int {
	return l.plan.Rounds()
}

// IndexFrom says where the index came from (rank 0 only; "" elsewhere or
// without an index).
func (l *Loader) IndexFrom() string { return l.ds.IndexFrom }

// ArenaBytes is the size of the node's shared-memory arena (0 in the lmdb
// mode, which has none).
func (l *Loader) ArenaBytes() int64 {
	if l.seg == nil {
		return 0
	}
	return int64(len(l.seg.Bytes()))
}

// Stats are the reads that reached storage on this rank.
func (l *Loader) Stats() reader.Stats {
	if l.lead != nil {
		return l.lead.fetch.stats()
	}
	return reader.Stats{}
}

// Close ends the learner's part. On a node leader it waits until the node
// reader has finished and every learner of the node has closed, so the
// arena is never taken away from a learner still reading it.
func (l *Loader) Close() error {
	if l.closed {
		return nil
	}
	l.closed = true
	var err error
	if l.caffe != nil {
		err = l.caffe.close()
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
	} else if l.seg != nil {
		if e := l.seg.Close(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// closeTimeout bounds how long a node leader waits at Close for learners
// that stopped reading without closing.
const closeTimeout = 30 * time.Second
