package source

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/lmdbio/lmdbio/internal/hdf5/h5pytest"
	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
)

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	spec := lmdbtest.Spec{Txns: []lmdbtest.Txn{{Puts: []lmdbtest.KV{{Key: []byte("k"), Value: []byte("v")}}}}}
	lmdbDir := filepath.Join(dir, "lmdb")
	lmdbtest.Write(t, lmdbDir, spec)
	lmdbFile := filepath.Join(dir, "single.mdb")
	spec.NoSubdir = true
	lmdbtest.Write(t, lmdbFile, spec)
	h5 := filepath.Join(dir, "plain.h5")
	h5pytest.Write(t, h5, "f['data'] = np.arange(3)")
	// A user block moves the superblock; a name says nothing.
	ub := filepath.Join(dir, "userblock.lmdb")
	h5pytest.Run(t, "f = h5py.File(args[0], 'w', userblock_size=2048); f['data'] = np.arange(3); f.close()", ub)
	h5img, _ := os.ReadFile(h5)
	shifted := append(make([]byte, 1000), h5img...) // not at a power of two
	// Page 0's magic gone: still LMDB, so that its reader names the damage.
	damaged, _ := os.ReadFile(lmdbFile)
	copy(damaged[16:20], []byte{0, 0, 0, 0})
	noDB := filepath.Join(dir, "empty-dir")
	os.Mkdir(noDB, 0o755)

	tests := []struct {
		path string
		want Format
		err  error
	}{
		{lmdbDir, LMDB, nil},
		{filepath.Join(lmdbDir, "data.mdb"), LMDB, nil},
		{lmdbFile, LMDB, nil},
		{write("damaged.mdb", damaged), LMDB, nil},
		{h5, HDF5, nil},
		{ub, HDF5, nil},
		{write("data.h5", []byte("just text, though named .h5\n")), "", ErrUnknownFormat},
		{write("shifted", shifted), "", ErrUnknownFormat},
		{write("empty", nil), "", ErrUnknownFormat},
		{write("tiny", []byte{0x89, 'H'}), "", ErrUnknownFormat},
		{noDB, "", ErrUnknownFormat},
		{filepath.Join(dir, "missing"), "", fs.ErrNotExist},
	}
	for _, tt := range tests {
		got, err := Detect(tt.path)
		if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("Detect(%s) = %q, %v; want %q, %v", filepath.Base(tt.path), got, err, tt.want, tt.err)
		}
	}
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte("\x89HDF\r\n\x1a\n"))
	f.Add(append(make([]byte, 512), "\x89HDF\r\n\x1a\n"...))
	f.Add([]byte("0123456789abcdef\xde\xc0\xef\xbe"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		format, err := Detect(p)
		if (format == "") == (err == nil) {
			t.Fatalf("Detect = %q, %v", format, err)
		}
	})
}
