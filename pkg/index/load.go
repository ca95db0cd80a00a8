package index

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lmdbio/lmdbio/pkg/lmdbfmt"
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
		cur, err := Identify(dataPath)
		if err != nil {
			return nil, "", err
		}
		for _, l := range locs {
			x, err := readSaved(l.path, cur)
			if err == nil {
				return x, l.kind + " " + l.path, nil
			}
			// Unreadable places count as empty; only say why an index
			// that exists was not trusted.
			switch {
			case errors.Is(err, ErrStale):
				rejected = append(rejected, "stale "+l.kind)
			case errors.Is(err, ErrCorrupt):
				rejected = append(rejected, "corrupt "+l.kind)
			}
		}
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

// readSaved reads a saved index and checks it describes the file as it is.
func readSaved(path string, cur Identity) (*Index, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	x, err := Unmarshal(b)
	if err != nil {
		return nil, err
	}
	if x.id != cur {
		return nil, fmt.Errorf("index: %s describes txn %d, %d bytes, mtime %d; the file is now txn %d, %d bytes, mtime %d: %w",
			path, x.id.TxnID, x.id.Size, x.id.MtimeNs, cur.TxnID, cur.Size, cur.MtimeNs, ErrStale)
	}
	return x, nil
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
