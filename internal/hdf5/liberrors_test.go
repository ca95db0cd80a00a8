//go:build cgo

package hdf5

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/gen"
	"github.com/lmdbio/lmdbio/internal/h5lib"
	gonum "gonum.org/v1/hdf5"
)

// truncatedFile writes an HDF5 file through libhdf5 (no h5py needed) and a
// copy cut to its first 2 KiB, which libhdf5 refuses to open ("truncated
// file"); it returns both paths.
func truncatedFile(t *testing.T) (good, truncated string) {
	t.Helper()
	dir := t.TempDir()
	good = filepath.Join(dir, "good.h5")
	if _, err := gen.WriteHDF5(good, gen.HDF5Options{Records: 200, Shape: []int{3, 16, 16}, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	img, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	truncated = filepath.Join(dir, "truncated.h5")
	if err := os.WriteFile(truncated, img[:2048], 0o644); err != nil {
		t.Fatal(err)
	}
	return good, truncated
}

// TestFailedOpenClearsLibErrors: when libhdf5 cannot open a file, Open,
// Inspect and the libhdf5 decoder leave nothing on libhdf5's error stack.
// What a failed H5Fopen left there held libhdf5's error classes and
// messages until the process exited, when libhdf5 printed "HDF5: infinite
// loop closing library" (from the C API and the Python binding).
func TestFailedOpenClearsLibErrors(t *testing.T) {
	good, truncated := truncatedFile(t)

	// A source read through libhdf5 whose file is then cut short.
	cut := filepath.Join(t.TempDir(), "cut.h5")
	img, _ := os.ReadFile(good)
	if err := os.WriteFile(cut, img, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(cut, Options{NoLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	s.read, s.why, s.base, s.chunk, s.chunks = ByLibrary, "test", -1, nil, nil
	s.rowsPerBlock = fallbackRows(s.rowBytes, nil)
	if err := s.setUp(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, img[:2048], 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name string
		fail func() error
	}{
		{"Open", func() error { _, err := Open(truncated, Options{}); return err }},
		{"Inspect", func() error { _, err := Inspect(truncated); return err }},
		{"Decode", func() error { return s.Decoder().Decode(0, nil, make([]byte, s.DecodedLen(0))) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.fail(); err == nil || !strings.Contains(err.Error(), "truncated file") {
				t.Fatalf("%s = %v, want libhdf5's truncated file", tt.name, err)
			}
			if n := h5lib.ErrorDepth(); n != 0 {
				t.Errorf("%s left %d records on libhdf5's error stack", tt.name, n)
			}
		})
	}
}

// TestFailedOpenLetsLibraryClose: after an Open that libhdf5 failed,
// H5close, as libhdf5's exit handler calls it, closes the library
// quietly. It runs in a child process, since libhdf5 stays closed.
func TestFailedOpenLetsLibraryClose(t *testing.T) {
	if path := os.Getenv("LMDBIO_TEST_H5CLOSE"); path != "" {
		if _, err := Open(path, Options{}); !errors.Is(err, ErrBadInput) {
			t.Fatalf("Open = %v, want ErrBadInput", err)
		}
		// From this goroutine's thread, not h5lib's: as exit() does.
		if err := gonum.Close(); err != nil {
			t.Fatal(err)
		}
		return
	}
	_, truncated := truncatedFile(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailedOpenLetsLibraryClose$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LMDBIO_TEST_H5CLOSE="+truncated)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s%s", err, out, stderr.String())
	}
	if msg := stderr.String(); strings.Contains(msg, "HDF5:") {
		t.Errorf("H5close after the failed Open printed:\n%s", msg)
	}
}
