package index

import (
	"bytes"
	"fmt"
	"math"
	"os"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt"
)

const (
	// maxBuildAttempts bounds retries when the database changes during a walk.
	maxBuildAttempts = 3
	// maxPrealloc bounds the records room is made for before the walk.
	maxPrealloc = 1 << 20
)

// Build indexes the LMDB data file at dataPath (a data.mdb or a single-file
// database; see lmdbfmt.DataPath for resolving a directory). It reads only
// the meta, branch and leaf pages. If a writer commits while the walk runs,
// the walk is repeated so the index matches one snapshot.
func Build(dataPath string) (*Index, error) {
	fh, _, err := lmdbfmt.OpenRegular(dataPath)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	defer fh.Close()
	for range maxBuildAttempts {
		before, f, err := identify(fh)
		if err != nil {
			return nil, fmt.Errorf("index: %s: %w", dataPath, err)
		}
		x, err := walk(f, before)
		if err != nil {
			return nil, fmt.Errorf("index: %s: %w", dataPath, err)
		}
		after, _, err := identify(fh)
		if err != nil {
			return nil, fmt.Errorf("index: %s: %w", dataPath, err)
		}
		if after == before {
			return x, nil
		}
	}
	return nil, fmt.Errorf("index: %s: database kept changing while being indexed (%d attempts)", dataPath, maxBuildAttempts)
}

// Identify returns the identity of the LMDB data file at dataPath as it is
// now, reading only its meta pages.
func Identify(dataPath string) (Identity, error) {
	fh, _, err := lmdbfmt.OpenRegular(dataPath)
	if err != nil {
		return Identity{}, fmt.Errorf("index: %w", err)
	}
	defer fh.Close()
	id, _, err := identify(fh)
	if err != nil {
		return Identity{}, fmt.Errorf("index: %s: %w", dataPath, err)
	}
	return id, nil
}

func identify(fh *os.File) (Identity, *lmdbfmt.File, error) {
	st, err := fh.Stat()
	if err != nil {
		return Identity{}, nil, err
	}
	f, err := lmdbfmt.Open(fh, st.Size())
	if err != nil {
		return Identity{}, nil, err
	}
	return Identity{Size: st.Size(), TxnID: f.Meta().TxnID, MtimeNs: st.ModTime().UnixNano()}, f, nil
}

// walk collects the records of f into a new Index.
func walk(f *lmdbfmt.File, id Identity) (*Index, error) {
	m := f.Meta()
	// The meta's counters are validated by the walk, so until then they
	// only size the first allocation, and a bounded one: a sparse file can
	// claim more records than memory holds. Growing past it is paid for by
	// records actually found.
	n := min(m.Entries, maxPrealloc)
	x := &Index{
		id:     id,
		psize:  f.PageSize(),
		keyOff: make([]uint32, 1, n+1),
		off:    make([]int64, 0, n),
		size:   make([]uint32, 0, n),
	}
	var keys bytes.Buffer
	err := f.Walk(func(r lmdbfmt.Record) error {
		if uint64(keys.Len())+uint64(len(r.Key)) > math.MaxUint32 {
			return fmt.Errorf("keys exceed 4 GiB, more than an index holds")
		}
		keys.Write(r.Key)
		x.keyOff = append(x.keyOff, uint32(keys.Len()))
		x.off = append(x.off, r.Offset)
		x.size = append(x.size, uint32(r.Length))
		x.total += r.Length
		return nil
	})
	if err != nil {
		return nil, err
	}
	x.keys = keys.Bytes()
	return x, nil
}
