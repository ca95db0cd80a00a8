package loader

import (
	"fmt"
	"io"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/lmdb"
)

// caffeReader is the baseline every other mode is measured against: what
// Caffe-MPI does. Every rank opens the database with liblmdb (mmap), walks a
// cursor to its first batch, and after each batch skips the records of the
// other ranks' batches one by one. The bytes arrive by page faults.
type caffeReader struct {
	env    *lmdb.Env
	txn    *lmdb.Txn
	cur    *lmdb.Cursor
	pos    int // record under the cursor; -1 before the first
	plan   *assign.Epoch
	rank   int
	rounds int
	epochs int
	epoch  int
	round  int
	batch  Batch
}

func openCaffe(ds *dataset, opt Options) (*caffeReader, error) {
	t := opt.Topology
	// One "node" of all ranks: learner r takes global batches r, r+n, r+2n...
	plan, err := assign.Sequential(identityPositions(ds.Records), assign.Layout{Batch: opt.Batch,
		NodeSizes: []int{t.Size}, Remainder: opt.Remainder})
	if err != nil {
		return nil, err
	}
	env, err := lmdb.Open(ds.Path, lmdb.ReadOnly|lmdb.NoLock|lmdb.NoSubdir, 0)
	if err != nil {
		return nil, err
	}
	c := &caffeReader{env: env, pos: -1, plan: plan, rank: t.Rank, rounds: plan.Rounds(), epochs: opt.Epochs}
	if c.txn, err = env.BeginRead(); err == nil {
		c.cur, err = c.txn.Cursor()
	}
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// next returns the rank's next batch as views into liblmdb's map, valid
// until the next call.
func (c *caffeReader) next() (Batch, error) {
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
		k, v, err := c.seek(int(r))
		if err != nil {
			return Batch{}, err
		}
		b.Records, b.Keys, b.Values = append(b.Records, int(r)), append(b.Keys, k), append(b.Values, v)
		b.Labels = append(b.Labels, nil)
	}
	c.round++
	return *b, nil
}

// seek walks the cursor to record i, one record at a time, from where it is
// (or from the start, for a new epoch or a padded batch).
func (c *caffeReader) seek(i int) (k, v []byte, err error) {
	if i <= c.pos {
		c.pos = -1
	}
	for c.pos < i {
		if c.pos < 0 {
			k, v, err = c.cur.First()
		} else {
			k, v, err = c.cur.Next()
		}
		if err != nil {
			return nil, nil, fmt.Errorf("cursor walk to record %d: %w", i, err)
		}
		c.pos++
	}
	return k, v, nil
}

func (c *caffeReader) close() error {
	if c.cur != nil {
		c.cur.Close()
		c.cur = nil
	}
	if c.txn != nil {
		c.txn.Abort()
		c.txn = nil
	}
	return c.env.Close()
}
