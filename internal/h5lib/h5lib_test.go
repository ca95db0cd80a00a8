//go:build cgo

package h5lib

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/lmdbio/lmdbio/internal/hdf5/h5pytest"
	"golang.org/x/sys/unix"
)

// sample writes, with h5py, one dataset of every kind the tests look at.
const sample = `
rng = np.random.default_rng(7)
f.create_dataset('data', data=rng.random((10, 4), dtype=np.float32))
g = f.create_group('train').create_group('sub')
g.create_dataset('images', data=rng.integers(0, 256, (10, 3, 4, 4), dtype=np.uint8),
                 chunks=(4, 2, 4, 4), compression='gzip', compression_opts=6, shuffle=True)
f.create_dataset('plain_chunks', data=np.arange(30, dtype='>i2').reshape(10, 3), chunks=(4, 2))
f.create_dataset('scalar', data=3.5)
f.create_dataset('names', data=['a', 'bb'], dtype=h5py.string_dtype())
f.create_dataset('flags', data=np.array([True, False]))
f.create_dataset('vectors', shape=(2,), dtype=np.dtype((np.float64, (3,))))
f.create_dataset('pairs', data=np.zeros((2,), dtype=[('a', 'i4'), ('b', 'f8')]))
p = f.create_dataset('partial', shape=(10,), dtype='u2', chunks=(4,))
p[0:4] = 1
dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
dcpl.set_layout(h5py.h5d.COMPACT)
h5py.h5d.create(f.id, b'compact', h5py.h5t.STD_I32LE, h5py.h5s.create_simple((4, 2)), dcpl=dcpl)
`

var (
	sampleOnce sync.Once
	samplePath string
)

func sampleFile(t *testing.T) string {
	t.Helper()
	h5pytest.Require(t)
	sampleOnce.Do(func() {
		dir, err := os.MkdirTemp("", "h5lib-test-")
		if err != nil {
			t.Fatal(err)
		}
		samplePath = filepath.Join(dir, "sample.h5")
		h5pytest.Write(t, samplePath, sample)
	})
	return samplePath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if samplePath != "" {
		os.RemoveAll(filepath.Dir(samplePath))
	}
	os.Exit(code)
}

func open(t *testing.T, path string) *File {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// pyBytes returns rows [start, stop) of a dataset as h5py reads them.
func pyBytes(t *testing.T, path, name string, start, stop int) []byte {
	out := h5pytest.Run(t, "print(h5py.File(args[0], 'r')[args[1]][int(args[2]):int(args[3])].tobytes().hex())",
		path, name, itoa(start), itoa(stop))
	b, err := hex.DecodeString(strings.TrimSpace(out))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestDatasets(t *testing.T) {
	f := open(t, sampleFile(t))
	got, err := f.Datasets()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/compact", "/data", "/flags", "/names", "/pairs", "/partial", "/plain_chunks", "/scalar",
		"/train/sub/images", "/vectors"}
	if !slices.Equal(got, want) {
		t.Errorf("Datasets = %q, want %q", got, want)
	}
}

func TestDataset(t *testing.T) {
	path := sampleFile(t)
	f := open(t, path)
	tests := []struct {
		name, typ, filters string
		space              Space
		shape, chunk       []int64
		layout             Layout
		allocated          int64
	}{
		{"data", "float32", "", Simple, []int64{10, 4}, nil, Contiguous, 0},
		{"/train/sub/images", "uint8", "shuffle deflate(6)", Simple, []int64{10, 3, 4, 4}, []int64{4, 2, 4, 4}, Chunked, 6},
		{"plain_chunks", "int16 (big-endian)", "", Simple, []int64{10, 3}, []int64{4, 2}, Chunked, 6},
		{"scalar", "float64", "", Scalar, nil, nil, Contiguous, 0},
		{"names", "variable-length string", "", Simple, []int64{2}, nil, Contiguous, 0},
		{"flags", "enum of int8", "", Simple, []int64{2}, nil, Contiguous, 0},
		{"vectors", "array[3] of float64", "", Simple, []int64{2}, nil, Contiguous, 0},
		{"pairs", "compound (12 bytes)", "", Simple, []int64{2}, nil, Contiguous, 0},
		{"partial", "uint16", "", Simple, []int64{10}, []int64{4}, Chunked, 1},
		{"compact", "int32", "", Simple, []int64{4, 2}, nil, Compact, 0},
	}
	for _, tt := range tests {
		d, err := f.Dataset(tt.name)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var filters []string
		for _, fl := range d.Filters {
			filters = append(filters, fl.String())
			if !fl.LibDecodes {
				t.Errorf("%s: libhdf5 cannot decode %s", tt.name, fl)
			}
		}
		if d.Type.String() != tt.typ || strings.Join(filters, " ") != tt.filters || d.Space != tt.space ||
			!slices.Equal(d.Shape, tt.shape) || !slices.Equal(d.Chunk, tt.chunk) || d.Layout != tt.layout ||
			d.Allocated != tt.allocated || d.External != 0 {
			t.Errorf("%s: %+v", tt.name, d)
		}
	}
	// The contiguous dataset's bytes lie at Offset.
	d, err := f.Dataset("data")
	if err != nil {
		t.Fatal(err)
	}
	img, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := pyBytes(t, path, "data", 0, 10); d.Offset < 0 || d.Stored != 160 ||
		!bytes.Equal(img[d.Offset:d.Offset+160], want) {
		t.Errorf("data at offset %d (stored %d) differs from what h5py reads", d.Offset, d.Stored)
	}
}

func TestChunks(t *testing.T) {
	path := sampleFile(t)
	f := open(t, path)
	img, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Unfiltered chunks hold the data of their part of the grid as is:
	// chunk (r, c) holds rows 4r..4r+3, columns 2c..2c+1 (padded).
	chunks, err := f.Chunks("plain_chunks")
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 6 {
		t.Fatalf("%d chunks, want 6", len(chunks))
	}
	for i, c := range chunks {
		if want := []int64{int64(i / 2), int64(i % 2)}; !slices.Equal(c.Coord, want) || c.Size != 16 || c.FilterMask != 0 {
			t.Errorf("chunk %d: %+v", i, c)
			continue
		}
		// Element (row 4r, column 2c) = 3*4r + 2c, big-endian int16.
		first := 12*c.Coord[0] + 2*c.Coord[1]
		if got := int64(img[c.Offset])<<8 | int64(img[c.Offset+1]); got != first {
			t.Errorf("chunk %v starts with %d, want %d", c.Coord, got, first)
		}
	}
	chunks, err = f.Chunks("partial")
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 3 || chunks[0].Offset < 0 || chunks[1].Offset != -1 || chunks[2].Offset != -1 {
		t.Errorf("partial: %+v", chunks)
	}
	if _, err := f.Chunks("data"); err == nil {
		t.Error("Chunks of a contiguous dataset succeeded")
	}
}

func TestReadRows(t *testing.T) {
	path := sampleFile(t)
	f := open(t, path)
	for _, tt := range []struct {
		name          string
		start, count  int
		shape         []int64
		size, rowSize int64
	}{
		{"data", 3, 5, []int64{10, 4}, 4, 16},
		{"train/sub/images", 2, 7, []int64{10, 3, 4, 4}, 1, 48},
		{"plain_chunks", 9, 1, []int64{10, 3}, 2, 6},
		{"compact", 0, 4, []int64{4, 2}, 4, 8},
	} {
		dst := make([]byte, int64(tt.count)*tt.rowSize)
		if err := f.ReadRows(tt.name, tt.shape, tt.size, int64(tt.start), int64(tt.count), dst); err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if want := pyBytes(t, path, tt.name, tt.start, tt.start+tt.count); !bytes.Equal(dst, want) {
			t.Errorf("%s rows %d+%d: differ from h5py's", tt.name, tt.start, tt.count)
		}
	}
	dst := make([]byte, 16)
	if err := f.ReadRows("data", []int64{10, 5}, 4, 0, 1, dst); err == nil {
		t.Error("ReadRows with the wrong shape succeeded")
	}
	if err := f.ReadRows("data", []int64{10, 4}, 4, 9, 2, dst); err == nil {
		t.Error("ReadRows past the end succeeded")
	}
}

func TestErrors(t *testing.T) {
	path := sampleFile(t)
	f := open(t, path)
	for _, name := range []string{"nope", "train/nope", "nope/images", "train/sub/images/x", ""} {
		if _, err := f.Dataset(name); !errors.Is(err, ErrNotFound) {
			t.Errorf("Dataset(%q) = %v, want ErrNotFound", name, err)
		}
	}
	if _, err := f.Dataset("train"); err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "not a dataset") {
		t.Errorf("Dataset(group) = %v", err)
	}

	dir := t.TempDir()
	text := filepath.Join(dir, "text")
	os.WriteFile(text, []byte("not hdf5 at all\n"), 0o644)
	img, _ := os.ReadFile(path)
	short := filepath.Join(dir, "short.h5")
	os.WriteFile(short, img[:len(img)/2], 0o644)
	for _, tt := range []struct{ path, want string }{
		{text, "file signature not found"},
		{short, "truncated file"},
	} {
		_, err := Open(tt.path)
		if !errors.Is(err, ErrLibrary) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%s) = %v, want %q", filepath.Base(tt.path), err, tt.want)
		}
	}
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(missing) = %v", err)
	}
}

// TestNoFileLocking: a file another process holds an exclusive flock on
// (as a file system without flock support fails every lock) still opens.
func TestNoFileLocking(t *testing.T) {
	if v, ok := os.LookupEnv("HDF5_USE_FILE_LOCKING"); ok {
		t.Skipf("HDF5_USE_FILE_LOCKING=%s is set", v)
	}
	path := filepath.Join(t.TempDir(), "locked.h5")
	h5pytest.Write(t, path, "f['data'] = np.arange(4)")
	lock, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatalf("Open of a locked file: %v", err)
	}
	f.Close()
	if v, ok := os.LookupEnv("HDF5_USE_FILE_LOCKING"); ok {
		t.Errorf("HDF5_USE_FILE_LOCKING=%s left in the environment", v)
	}
}

func TestDoPanics(t *testing.T) {
	defer func() {
		if v := recover(); v != "boom" {
			t.Errorf("recovered %v, want boom", v)
		}
		// The goroutine survives.
		if err := Do(func() error { return nil }); err != nil {
			t.Error(err)
		}
	}()
	Do(func() error { panic("boom") })
}
