// Package lmdbpin keeps the snapshot of an LMDB database that an index
// describes readable for as long as a reader needs it.
//
// # Overview
//
// LMDB promises a reader a stable snapshot for the life of a read
// transaction: a writer never reuses the pages of a snapshot that a reader
// holds. A reader that preads values at offsets from an index holds no
// transaction, so a writer that commits during the run may reuse the pages
// under it and the reader would hand out other bytes. Open pins the
// snapshot instead:
//
//   - where the lock file can be used, it holds a read transaction
//     (through github.com/PowerDNS/lmdb-go) for the life of the Pin, after
//     checking that its snapshot is the one indexed; Check then has nothing
//     to do;
//   - where it cannot (no lock file, a read-only file system, no permission
//     to open it for writing), it remembers the indexed transaction and
//     Check reads the two meta pages to see whether a newer one has been
//     committed since.
//
// # Invariants
//
//   - A held transaction guards the snapshot only against writers that use
//     the same lock file, as LMDB's own readers are: writers on this host.
//     Writers on other hosts of a network file system do not see it.
//   - Without a held transaction, the bytes read before a Check that
//     returns nil belong to the indexed snapshot: its pages cannot be reused
//     before a later transaction commits, which Check would see.
//   - One process opens each lock file once (LMDB's rule: closing a second
//     descriptor of it drops the process's locks); Pins of the same database
//     in one process share that environment.
//   - Errors about a database that moved on wrap ErrChanged.
package lmdbpin

import (
	"errors"
	"fmt"
	"os"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt"
)

// ErrChanged means the database committed another transaction than the one
// an index describes.
var ErrChanged = errors.New("database changed")

// Pin keeps one snapshot of a database readable, or notices when it is
// not. Check may be called from any goroutine; Close once, after the last
// Check.
type Pin struct {
	txnID uint64
	snap  *snapshot // the held read transaction; nil when none is held
	file  *os.File  // the data file, for Check without a transaction
}

// Open pins the snapshot committed by transaction txnID of the LMDB data
// file at dataPath (a data.mdb or a single-file database). It fails with an
// error wrapping ErrChanged if the database has committed another
// transaction since.
func Open(dataPath string, txnID uint64) (*Pin, error) {
	snap, err := holdSnapshot(dataPath, txnID)
	if err != nil {
		return nil, err
	}
	if snap != nil {
		return &Pin{txnID: txnID, snap: snap}, nil
	}
	file, _, err := lmdbfmt.OpenRegular(dataPath)
	if err != nil {
		return nil, err
	}
	p := &Pin{txnID: txnID, file: file}
	if err := p.check("since it was indexed"); err != nil {
		file.Close()
		return nil, err
	}
	return p, nil
}

// Held reports whether a read transaction holds the snapshot, so that Check
// has nothing to do.
func (p *Pin) Held() bool { return p.snap != nil }

// Check returns an error wrapping ErrChanged if the database has committed
// a transaction after the pinned one and the snapshot is not held. It costs
// an fstat and two small preads without a held transaction, nothing with
// one. Call it after reads whose bytes must belong to the snapshot, before
// using them.
func (p *Pin) Check() error {
	if p.snap != nil {
		return nil
	}
	return p.check("during the run")
}

// check compares the newest committed transaction with the pinned one.
func (p *Pin) check(when string) error {
	f, err := p.readMeta()
	if err != nil {
		return fmt.Errorf("lmdbpin: %s: the database changed or was damaged %s: %w: %w", p.file.Name(), when, ErrChanged, err)
	}
	if got := f.Meta().TxnID; got != p.txnID {
		return changed(when, got, p.txnID)
	}
	return nil
}

// sizeReads is how many times readMeta reads the meta pages while the
// file's size keeps changing.
const sizeReads = 3

// readMeta reads the file's meta pages at its current size. A writer
// committing meanwhile grows the file and then writes a meta page that
// needs the new size: a meta page read after a size taken before looks
// like a file cut short. So when reading fails and the size has changed,
// it reads again at the new size.
func (p *Pin) readMeta() (*lmdbfmt.File, error) {
	st, err := p.file.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	for i := 1; ; i++ {
		f, err := lmdbfmt.Open(p.file, size)
		if err == nil || i == sizeReads {
			return f, err
		}
		now, e := p.file.Stat()
		if e != nil || now.Size() == size {
			return nil, err
		}
		size = now.Size()
	}
}

func changed(when string, got, want uint64) error {
	return fmt.Errorf("lmdbpin: the database changed %s (transaction %d, indexed %d): %w", when, got, want, ErrChanged)
}

// Close ends the read transaction, or closes the data file. Closing twice
// is harmless.
func (p *Pin) Close() error {
	if p.snap != nil {
		p.snap.close()
		p.snap = nil
	}
	if p.file != nil {
		err := p.file.Close()
		p.file = nil
		return err
	}
	return nil
}
