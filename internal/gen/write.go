//go:build cgo

package gen

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/PowerDNS/lmdb-go/lmdb"
)

// Write creates the dataset opt describes in dir, creating dir if needed.
// dir must not hold a data.mdb unless opt.Overwrite is set. The load runs
// without fsync and syncs once at the end.
func Write(dir string, opt Options) (Summary, error) {
	return write(dir, opt, 0)
}

// write is Write with the initial map size under the caller's control
// (0: estimate it), so tests can exercise growing the map.
func write(dir string, opt Options, mapSize int64) (sum Summary, err error) {
	start := time.Now()
	opt, err = opt.check()
	if err != nil {
		return Summary{}, err
	}
	created, err := prepareDir(dir, opt.Overwrite)
	if err != nil {
		return Summary{}, err
	}
	// From here on data.mdb is this run's (an old one is gone): a failed
	// run leaves no half-written dataset behind to refuse the next run.
	ours := []string{filepath.Join(dir, "data.mdb")}
	if lock := filepath.Join(dir, "lock.mdb"); missing(lock) {
		ours = append(ours, lock)
	}
	defer func() {
		if err != nil {
			removeCreated(ours, dir, created)
		}
	}()
	if mapSize == 0 {
		mapSize = estimateMapSize(opt)
	}
	env, err := openEnv(dir, mapSize)
	if err != nil {
		return Summary{}, fmt.Errorf("gen: open %s: %w", dir, err)
	}
	defer env.Close()
	wb := newWriteback(filepath.Join(dir, "data.mdb"))
	defer wb.close()
	w := &loader{env: env, opt: opt, recs: newRecords(opt), order: insertionOrder(opt), wb: wb}
	if err := w.load(); err != nil {
		return Summary{}, fmt.Errorf("gen: write %s: %w", dir, err)
	}
	if err := env.Sync(true); err != nil {
		return Summary{}, fmt.Errorf("gen: sync %s: %w", dir, err)
	}
	env.Close()
	st, err := os.Stat(filepath.Join(dir, "data.mdb"))
	if err != nil {
		return Summary{}, fmt.Errorf("gen: %w", err)
	}
	return Summary{Records: opt.Records, Bytes: w.bytes, FileSize: st.Size(), Elapsed: time.Since(start)}, nil
}

// openEnv creates the environment in dir without fsync on commit (the load
// syncs once at the end).
func openEnv(dir string, mapSize int64) (*lmdb.Env, error) {
	env, err := lmdb.NewEnv()
	if err != nil {
		return nil, err
	}
	if err = env.SetMapSize(mapSize); err == nil {
		err = env.Open(dir, lmdb.NoSync, 0o644)
	}
	if err != nil {
		env.Close()
		return nil, err
	}
	return env, nil
}

// prepareDir creates dir, or empties it of an old dataset if overwrite. It
// returns the topmost directory it created ("" if dir existed).
func prepareDir(dir string, overwrite bool) (created string, err error) {
	if created, err = mkdirAll(dir); err != nil {
		return "", fmt.Errorf("gen: %w", err)
	}
	data := filepath.Join(dir, "data.mdb")
	if _, err := os.Lstat(data); errors.Is(err, fs.ErrNotExist) {
		return created, nil
	} else if err != nil {
		return "", fmt.Errorf("gen: %w", err)
	}
	if !overwrite {
		return "", fmt.Errorf("gen: %s: %w (overwrite not requested)", data, fs.ErrExist)
	}
	for _, name := range []string{data, filepath.Join(dir, "lock.mdb")} {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("gen: %w", err)
		}
	}
	return created, nil
}

// estimateMapSize returns a map size the dataset will fit in with room to
// spare. The map only reserves address space and the file grows as pages
// are written, so erring large costs nothing.
func estimateMapSize(opt Options) int64 {
	const (
		pageSize = 4096 // a large value rounds up to whole overflow pages
		perKey   = 128  // key, node header, branch share, Datum framing
	)
	perRecord := float64(opt.MeanSize) + 4*float64(opt.StdDev) + pageSize + perKey
	// No more than half the address space: the process needs the rest, and
	// load grows the map if the dataset turns out to need more.
	return int64(min(float64(opt.Records)*perRecord*3/2+64<<20, float64(MapLimit()/2)))
}

// insertionOrder returns the record numbers in insertion order for Random,
// or nil for KeyOrder (record n goes n-th).
func insertionOrder(opt Options) []int {
	if opt.Order != Random {
		return nil
	}
	// A stream separate from the records' (different second seed word).
	return rand.New(rand.NewPCG(uint64(opt.Seed), 0x6f72646572)).Perm(opt.Records)
}

// loader inserts the records in transactions.
type loader struct {
	env   *lmdb.Env
	opt   Options
	recs  *records
	order []int
	wb    *writeback
	done  int   // records committed
	bytes int64 // value bytes committed
}

// load writes every record, growing the map when it fills.
func (l *loader) load() error {
	for l.done < l.opt.Records {
		n, b, err := l.txn()
		if lmdb.IsMapFull(err) {
			if err := l.grow(); err != nil {
				return err
			}
			continue // the aborted transaction is redone in full
		}
		if err != nil {
			return err
		}
		l.done += n
		l.bytes += b
		l.wb.start()
		if l.opt.Progress != nil {
			l.opt.Progress(l.done, l.opt.Records)
		}
	}
	return nil
}

// txn writes the next batch of records in one transaction and returns how
// many records and value bytes it committed.
func (l *loader) txn() (n int, bytes int64, err error) {
	err = l.env.Update(func(txn *lmdb.Txn) error {
		dbi, err := txn.OpenRoot(0)
		if err != nil {
			return err
		}
		n, bytes = 0, 0
		for l.done+n < l.opt.Records && n < l.opt.TxnRecords && bytes < maxTxnBytes {
			if l.opt.JPEG && n%photoBatch == 0 {
				l.makePhotos(l.done + n)
			}
			key, value := l.recs.record(l.recordAt(l.done + n))
			if err := txn.Put(dbi, key, value, 0); err != nil {
				return err
			}
			n++
			bytes += int64(len(value))
		}
		return nil
	})
	return n, bytes, err
}

// makePhotos makes ahead the photographs of the records inserted from
// position pos on.
func (l *loader) makePhotos(pos int) {
	ids := make([]int, 0, photoBatch)
	for p := pos; p < min(pos+photoBatch, l.opt.Records); p++ {
		ids = append(ids, l.recordAt(p))
	}
	l.recs.makePhotos(ids)
}

// recordAt returns the number of the record inserted pos-th.
func (l *loader) recordAt(pos int) int {
	if l.order == nil {
		return pos
	}
	return l.order[pos]
}

// grow doubles the map size.
func (l *loader) grow() error {
	info, err := l.env.Info()
	if err != nil {
		return err
	}
	return l.env.SetMapSize(2 * info.MapSize)
}
