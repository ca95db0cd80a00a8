package loader

import (
	"io"

	"github.com/lmdbio/lmdbio/internal/lmdbwalk"
	"github.com/lmdbio/lmdbio/pkg/assign"
)

// rankWalk is the lmdb mode, the baseline every other mode is measured
// against: what Caffe-MPI does. There is no node reader: every rank opens
// the database with liblmdb (mmap), walks a cursor to its first batch, and
// after each batch skips the records of the other ranks' batches one by
// one. The bytes arrive by page faults, value
// after value in walk order, as Caffe's copy of each value brings them.
type rankWalk struct {
	walk   *lmdbwalk.Walker
	plan   *assign.Epoch
	rank   int
	rounds int
	epochs int
	epoch  int
	round  int
	batch  Batch
}

func openRankWalk(ds *dataset, opt Options) (*rankWalk, error) {
	t := opt.Topology
	// One "node" of all ranks: learner r takes global batches r, r+n, r+2n...
	plan, err := assign.Sequential(identityPositions(ds.Records), assign.Layout{Batch: opt.Batch,
		NodeSizes: []int{t.Size}, Remainder: opt.Remainder})
	if err != nil {
		return nil, err
	}
	walk, err := lmdbwalk.Open(ds.Path)
	if err != nil {
		return nil, err
	}
	return &rankWalk{walk: walk, plan: plan, rank: t.Rank, rounds: plan.Rounds(), epochs: opt.Epochs}, nil
}

// next returns the rank's next batch as views into liblmdb's map, valid
// until the next call.
func (c *rankWalk) next() (Batch, error) {
	// The views handed out last were in use until now.
	if err := c.walk.Check(); err != nil {
		return Batch{}, err
	}
	if c.epoch >= c.epochs {
		return Batch{}, io.EOF
	}
	if c.round == c.rounds {
		c.epoch, c.round = c.epoch+1, 0
		return Batch{}, io.EOF
	}
	b := &c.batch
	b.Epoch = c.epoch
	b.Records, b.Keys, b.Values, b.Labels = b.Records[:0], b.Keys[:0], b.Values[:0], b.Labels[:0]
	for _, r := range c.plan.Batch(0, c.rank, c.round) {
		k, v, err := c.walk.Seek(int(r))
		if err != nil {
			return Batch{}, err
		}
		lmdbwalk.FaultIn(v) // in walk order, as Caffe's copy into a Datum
		b.Records, b.Keys, b.Values = append(b.Records, int(r)), append(b.Keys, k), append(b.Values, v)
		b.Labels = append(b.Labels, nil)
	}
	if err := c.walk.Check(); err != nil {
		return Batch{}, err
	}
	c.round++
	return *b, nil
}

func (c *rankWalk) close() error { return c.walk.Close() }
