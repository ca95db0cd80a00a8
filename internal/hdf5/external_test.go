package hdf5

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/hdf5/h5pytest"
)

// TestExternalFileMissing: a dataset whose rows lie in an external file
// that is gone is refused at Open with an error that names the file, for
// an absolute name and for a relative one (found from the working
// directory); with the file there it opens and reads.
func TestExternalFileMissing(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "abs.h5")
	rel := filepath.Join(dir, "rel.h5")
	h5pytest.WriteAll(t, []h5pytest.File{
		{Path: abs, Script: `
import os
d = f.create_dataset('data', shape=(6, 4), dtype=np.uint8, external=[(os.path.join(os.path.dirname(args[0]), 'abs.bin'), 0, 24)])
d[:] = 1`},
		{Path: rel, Script: `
import os
os.chdir(os.path.dirname(args[0]))
d = f.create_dataset('data', shape=(6, 4), dtype=np.uint8, external=[('rel.bin', 0, 24)])
d[:] = 2`},
	})
	t.Setenv("HDF5_EXTFILE_PREFIX", "")
	t.Chdir(dir)
	for _, c := range []struct{ h5, raw string }{{abs, "abs.bin"}, {rel, "rel.bin"}} {
		s, err := Open(c.h5, Options{NoLabels: true})
		if err != nil {
			t.Fatalf("%s with its external file: %v", c.h5, err)
		}
		if s.Len() != 6 || s.Decoder() == nil {
			t.Fatalf("%s: %d rows, decoder %v; want 6 read through libhdf5", c.h5, s.Len(), s.Decoder())
		}
		block := make([]byte, s.DecodedLen(0))
		if err := s.Decoder().Decode(0, nil, block); err != nil || block[0] == 0 {
			t.Errorf("%s: reading its rows where externalPath looks: %v, first byte %d", c.h5, err, block[0])
		}
		raw := filepath.Join(dir, c.raw)
		if err := os.Remove(raw); err != nil {
			t.Fatal(err)
		}
		_, err = Open(c.h5, Options{NoLabels: true})
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "external file "+raw+", which cannot be opened: no such file") {
			t.Errorf("%s without %s: %v, want a bad-input error naming it", c.h5, raw, err)
		}
	}
}

// TestExternalPath: where libhdf5 looks for an external file: an absolute
// name as is, a relative one under HDF5_EXTFILE_PREFIX with ${ORIGIN} the
// HDF5 file's directory, else from the working directory.
func TestExternalPath(t *testing.T) {
	for _, c := range []struct{ prefix, name, want string }{
		{"", "/data/raw.bin", "/data/raw.bin"},
		{"", "raw.bin", "raw.bin"},
		{"${ORIGIN}", "raw.bin", "/h5/dir/raw.bin"},
		{"${ORIGIN}/../raw", "x/raw.bin", "/h5/raw/x/raw.bin"},
		{"/scratch", "raw.bin", "/scratch/raw.bin"},
		{"/scratch", "/data/raw.bin", "/data/raw.bin"},
	} {
		t.Setenv("HDF5_EXTFILE_PREFIX", c.prefix)
		if got := externalPath(c.name, "/h5/dir/d.h5"); got != c.want {
			t.Errorf("prefix %q, name %q: %s, want %s", c.prefix, c.name, got, c.want)
		}
	}
}
