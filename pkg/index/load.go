package index

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt"
	"github.com/lmdbio/lmdbio/internal/regular"
)

// SidecarName is the saved index inside an LMDB environment directory.
const SidecarName = "lmdbio.idx"

// sidecarSuffix names the saved index beside a single-file database.
const sidecarSuffix = ".lmdbio.idx"

// LoadOptions tune where Load looks for and saves indexes. The zero value
// uses the default locations.
type LoadOptions struct {
	// CacheDir overrides the cache directory ($LMDBIO_CACHE_DIR, else
	// $XDG_CACHE_HOME/lmdbio, else ~/.cache/lmdbio).
	CacheDir string
	// NoWriteBeside never creates or replaces the sidecar beside the
	// database, as if its directory were read-only. A fresh sidecar there is
	// still used.
	NoWriteBeside bool
	// NoCache neither reads nor writes the cache directory.
	NoCache bool
	// Rebuild ignores saved indexes, builds a new one and saves it.
	Rebuild bool
}

// SidecarPath is where the index of dataPath is kept beside it: lmdbio.idx
// in the environment directory for a data.mdb, else the file name plus
// ".lmdbio.idx".
func SidecarPath(dataPath string) string {
	if filepath.Base(dataPath) == lmdbfmt.DataFileName {
		return filepath.Join(filepath.Dir(dataPath), SidecarName)
	}
	return dataPath + sidecarSuffix
}

// CachePath is where the index of dataPath (made absolute) is kept in the
// cache directory: a name derived from a hash of the path, so datasets with
// the same file name do not collide.
func CachePath(dataPath string, opts LoadOptions) (string, error) {
	abs, err := filepath.Abs(dataPath)
	if err != nil {
		return "", err
	}
	dir, err := cacheDir(opts)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	name := filepath.Base(abs)
	if name == lmdbfmt.DataFileName {
		name = filepath.Base(filepath.Dir(abs))
	}
	return filepath.Join(dir, name+"-"+hex.EncodeToString(sum[:8])+".idx"), nil
}

func cacheDir(opts LoadOptions) (string, error) {
	if opts.CacheDir != "" {
		return opts.CacheDir, nil
	}
	if d := os.Getenv("LMDBIO_CACHE_DIR"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "lmdbio"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: %w", err)
	}
	return filepath.Join(home, ".cache", "lmdbio"), nil
}

// location is one place an index may be kept.
type location struct {
	kind  string // "sidecar" or "cache"
	path  string
	write bool
}

// Load returns the index of the database at path (a directory or a data
// file), using a saved index when one is fresh and building one otherwise.
//
// It looks beside the database first (SidecarPath), then in the cache
// directory (CachePath). A saved index that is corrupt or stale is never
// used; the new one is written, atomically, beside the database if that
// directory is writable, else into the cache directory, else kept only in
// memory.
//
// from tells what happened: "sidecar PATH", "cache PATH", or "built, saved
// to sidecar PATH", "built, saved to cache PATH", "built, kept in memory",
// followed by " (ignored stale sidecar, corrupt cache)" when saved indexes
// were found but not trusted.
func Load(path string, opts LoadOptions) (x *Index, from string, err error) {
	dataPath, err := lmdbfmt.DataPath(path)
	if err != nil {
		return nil, "", fmt.Errorf("index: %w", err)
	}
	if dataPath, err = filepath.Abs(dataPath); err != nil {
		return nil, "", fmt.Errorf("index: %w", err)
	}
	locs := []location{{"sidecar", SidecarPath(dataPath), !opts.NoWriteBeside}}
	if !opts.NoCache {
		if p, err := CachePath(dataPath, opts); err == nil {
			locs = append(locs, location{"cache", p, true})
		}
	}
	var rejected []string
	if !opts.Rebuild {
		x, from, why, err := findSaved(dataPath, locs)
		if x != nil || err != nil {
			return x, from, err
		}
		rejected = why
	}
	x, err = Build(dataPath)
	if err != nil {
		return nil, "", err
	}
	why := ""
	if len(rejected) > 0 {
		why = " (ignored " + strings.Join(rejected, ", ") + ")"
	}
	b, err := x.MarshalBinary()
	if err != nil {
		return nil, "", err
	}
	for _, l := range locs {
		if !l.write {
			continue
		}
		if err := writeAtomic(l.path, b); err == nil {
			return x, "built, saved to " + l.kind + " " + l.path + why, nil
		}
	}
	return x, "built, kept in memory" + why, nil
}

// findSaved returns the first saved index in locs that describes the data
// file as it is, with where it came from, or nil and why the saved indexes
// found were not trusted.
func findSaved(dataPath string, locs []location) (x *Index, from string, rejected []string, err error) {
	fh, st, err := lmdbfmt.OpenRegular(dataPath)
	if err != nil {
		return nil, "", nil, fmt.Errorf("index: %w", err)
	}
	defer fh.Close()
	// The first place is read while the data file's meta pages are: on a
	// parallel file system each is a round trip of its own.
	type read struct {
		b   []byte
		err error
	}
	first := make(chan read, 1)
	go func() {
		b, err := readSaved(locs[0].path, st.Size())
		first <- read{b, err}
	}()
	cur, _, err := identify(fh)
	if err != nil {
		return nil, "", nil, fmt.Errorf("index: %s: %w", dataPath, err)
	}
	for i, l := range locs {
		var b []byte
		if i == 0 {
			r := <-first
			b, err = r.b, r.err
		} else {
			b, err = readSaved(l.path, cur.Size)
		}
		if err == nil {
			x, err = checkSaved(l.path, b, cur, fh)
		}
		if err == nil {
			return x, l.kind + " " + l.path, nil, nil
		}
		// Unreadable places count as empty; only say why an index that
		// exists was not trusted.
		switch {
		case errors.Is(err, ErrStale):
			rejected = append(rejected, "stale "+l.kind)
		case errors.Is(err, ErrCorrupt):
			rejected = append(rejected, "corrupt "+l.kind)
		}
	}
	return nil, "", rejected, nil
}

// readSaved reads a saved index of a data file of dataSize bytes. Only a
// regular file no larger than an index of such data can be is read, so a
// FIFO cannot block Load and a device cannot feed it without end.
func readSaved(path string, dataSize int64) ([]byte, error) {
	f, st, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if limit := maxSavedSize(dataSize); st.Size() > limit {
		return nil, corruptf("%s: %d bytes, more than the %d an index of a %d-byte database can take", path, st.Size(), limit, dataSize)
	}
	b := make([]byte, st.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, err
	}
	return b, nil
}

// checkSaved decodes the saved index b read from path and checks that it
// describes the data file as it is: same identity, and a sample of records
// where the index says.
func checkSaved(path string, b []byte, cur Identity, data io.ReaderAt) (*Index, error) {
	x, err := Unmarshal(b)
	if err != nil {
		return nil, err
	}
	if x.id != cur {
		return nil, fmt.Errorf("index: %s describes txn %d, %d bytes, mtime %d; the file is now txn %d, %d bytes, mtime %d: %w",
			path, x.id.TxnID, x.id.Size, x.id.MtimeNs, cur.TxnID, cur.Size, cur.MtimeNs, ErrStale)
	}
	if err := x.spotCheck(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return x, nil
}

// maxSavedSize bounds the serialised index of a database of dataSize bytes.
// Each record takes at least 10 bytes of a leaf page (node pointer and
// header) and 16 bytes of the index, besides its key in both, so an index is
// less than twice its data file, plus its own header and trailer.
func maxSavedSize(dataSize int64) int64 {
	return headerSize + 4 + trailerSize + 2*dataSize
}

// writeAtomic replaces path with b so that readers see the old file or the
// new one, never a partial write: a temporary file in the same directory,
// renamed over path. It creates the cache directory if needed; a read-only
// directory makes it fail, which Load treats as "try the next place".
func writeAtomic(path string, b []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(b); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
