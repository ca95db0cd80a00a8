package loader

import (
	"github.com/lmdbio/lmdbio/internal/lmdbpin"
	"github.com/lmdbio/lmdbio/pkg/index"
)

// guard checks that the dataset is still the snapshot the index describes,
// after every read: a check before a read cannot vouch for the bytes read
// after it.
type guard interface {
	check() error
	close() error
	// holds reports whether the snapshot's bytes cannot change while the
	// guard is open, so learners may view the file.
	holds() bool
}

// noGuard checks nothing: formats whose files are not written under a
// reader.
type noGuard struct{}

func (noGuard) check() error { return nil }
func (noGuard) close() error { return nil }
func (noGuard) holds() bool  { return true }

// pinGuard keeps an LMDB snapshot for the life of the loader (a read
// transaction), or checks its meta pages where the lock file cannot be used.
type pinGuard struct{ pin *lmdbpin.Pin }

func (g pinGuard) check() error { return g.pin.Check() }
func (g pinGuard) close() error { return g.pin.Close() }
func (g pinGuard) holds() bool  { return g.pin.Held() }

// openGuard opens the dataset's guard for a node reader.
func openGuard(ds *dataset) (guard, error) {
	x, ok := ds.src.(interface{ Identity() index.Identity })
	if !ok {
		return noGuard{}, nil
	}
	pin, err := lmdbpin.Open(ds.Path, x.Identity().TxnID)
	if err != nil {
		return nil, err
	}
	return pinGuard{pin}, nil
}
