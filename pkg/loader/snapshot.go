package loader

import (
	"github.com/lmdbio/lmdbio/internal/lmdbpin"
	"github.com/lmdbio/lmdbio/pkg/index"
)

// snapshotPin keeps the dataset the snapshot the index describes, where
// the format allows, and checks after every read that it still is: a
// check before a read cannot vouch for the bytes read after it.
type snapshotPin interface {
	check() error
	close() error
	// holds reports whether the snapshot's bytes cannot change while the
	// pin is open, so learners may view the file.
	holds() bool
}

// noPin checks nothing: formats whose files are not written under a
// reader.
type noPin struct{}

func (noPin) check() error { return nil }
func (noPin) close() error { return nil }
func (noPin) holds() bool  { return true }

// lmdbPin keeps an LMDB snapshot for the life of the loader (a read
// transaction), or checks its meta pages where the lock file cannot be used.
type lmdbPin struct{ pin *lmdbpin.Pin }

func (p lmdbPin) check() error { return p.pin.Check() }
func (p lmdbPin) close() error { return p.pin.Close() }
func (p lmdbPin) holds() bool  { return p.pin.Held() }

// pinSnapshot pins the dataset's snapshot for a node reader.
func pinSnapshot(ds *dataset) (snapshotPin, error) {
	x, ok := ds.src.(interface{ Identity() index.Identity })
	if !ok {
		return noPin{}, nil
	}
	pin, err := lmdbpin.Open(ds.Path, x.Identity().TxnID)
	if err != nil {
		return nil, err
	}
	return lmdbPin{pin}, nil
}
