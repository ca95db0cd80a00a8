package hdf5

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/hdf5/h5pytest"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/internal/source/sourcetest"
)

// fixture is an HDF5 file written by h5py and what lmdbio must make of it.
type fixture struct {
	name   string
	script string // with f, the h5py.File, and rng, a numpy Generator
	opt    Options
	read   Read
	labels string // the labels dataset, "" for none
}

var fixtures = []fixture{
	{name: "contiguous float32 rows", script: `
f['data'] = rng.random((50, 7), dtype=np.float32)
f['label'] = np.arange(50, dtype=np.int64)`, read: ByOffset, labels: "/label"},
	{name: "chunked gzip uint8 images with labels", script: `
f.create_dataset('data', data=rng.integers(0, 64, (40, 3, 8, 8), dtype=np.uint8), chunks=(8, 3, 8, 8), compression='gzip')
f['label'] = rng.integers(0, 1000, 40, dtype=np.int64)`, read: ByChunk, labels: "/label"},
	{name: "chunks that do not divide the rows", script: `
f.create_dataset('data', data=rng.integers(0, 8, (37, 10), dtype=np.int16), chunks=(5, 10), compression='gzip', compression_opts=9)`,
		read: ByChunk},
	{name: "chunks that cut trailing dimensions", script: `
f.create_dataset('data', data=rng.integers(0, 99, (23, 5, 7), dtype=np.uint32), chunks=(4, 2, 3), compression='gzip')`,
		read: ByChunk},
	{name: "shuffle and gzip", script: `
f.create_dataset('data', data=rng.random((30, 6)), chunks=(7, 4), shuffle=True, compression='gzip')`, read: ByChunk},
	{name: "shuffle only, big-endian", script: `
f.create_dataset('data', data=rng.integers(0, 1<<20, (19, 3), dtype=np.int32).astype('>i4'), chunks=(4, 3), shuffle=True)`, read: ByChunk},
	{name: "dataset inside a group", script: `
g = f.create_group('train')
g.create_dataset('images', data=rng.integers(0, 256, (20, 4, 4), dtype=np.uint16), chunks=(6, 4, 4), compression='gzip')
g['labels'] = rng.integers(0, 10, (20, 2), dtype=np.int8)
f['data'] = np.zeros(3)`, opt: Options{Dataset: "train/images", Labels: "/train/labels"}, read: ByChunk, labels: "/train/labels"},
	{name: "big-endian contiguous without labels", script: `
f['data'] = rng.integers(-1000, 1000, (12, 2, 3), dtype=np.int32).astype('>i4')
f['label'] = np.arange(12)`, opt: Options{NoLabels: true}, read: ByOffset},
	{name: "unfiltered chunks of whole rows", script: `
f.create_dataset('data', data=rng.random((25, 4), dtype=np.float32), chunks=(6, 4))`, read: ByOffset},
	{name: "unfiltered chunks of partial rows", script: `
f.create_dataset('data', data=rng.random((25, 4), dtype=np.float32), chunks=(6, 3))`, read: ByChunk},
	{name: "rank 1", script: `
f.create_dataset('data', data=np.arange(1000, dtype=np.int64), chunks=(64,), compression='gzip')`, read: ByChunk},
	{name: "array elements", script: `
d = f.create_dataset('data', shape=(9,), dtype=np.dtype((np.float32, (2, 3))))
d[:] = rng.random((9, 2, 3), dtype=np.float32)`, read: ByOffset},
	{name: "no rows", script: `
f.create_dataset('data', shape=(0, 4), dtype=np.uint8)
f.create_dataset('label', shape=(0,), dtype=np.int64)`, read: ByOffset, labels: "/label"},
	{name: "no rows chunked", script: `
f.create_dataset('data', shape=(0, 4), maxshape=(None, 4), dtype=np.uint8, chunks=(2, 4), compression='gzip')`, read: ByChunk},
	{name: "user block", script: `
f.close()
f = h5py.File(args[0], 'w', userblock_size=4096)
f.create_dataset('data', data=rng.integers(0, 9, (33, 5), dtype=np.int16), chunks=(4, 5), compression='gzip')
f.create_dataset('label', data=np.arange(33, dtype=np.uint8))`, read: ByChunk, labels: "/label"},
	{name: "user block contiguous", script: `
f.close()
f = h5py.File(args[0], 'w', userblock_size=512)
f['data'] = rng.random((8, 3))`, read: ByOffset},
	{name: "newer format, fixed array index", script: `
f.close()
f = h5py.File(args[0], 'w', libver='latest')
f.create_dataset('data', data=rng.integers(0, 9, (50, 6), dtype=np.uint8), chunks=(3, 4), compression='gzip', shuffle=True)`,
		read: ByChunk},
	{name: "newer format, extensible array index", script: `
f.close()
f = h5py.File(args[0], 'w', libver='latest')
f.create_dataset('data', data=rng.integers(0, 9, (50, 6), dtype=np.uint8), chunks=(4, 6), maxshape=(None, 6))`,
		read: ByOffset},
	{name: "newer format, many chunks through libhdf5", script: `
f.close()
f = h5py.File(args[0], 'w', libver='latest')
f.create_dataset('data', data=rng.integers(0, 9, (3000, 2), dtype=np.uint8), chunks=(1, 2), compression='gzip')`,
		read: ByLibrary},
	{name: "many chunks in a v1 B-tree", script: `
f.create_dataset('data', data=rng.integers(0, 9, (20000, 3), dtype=np.uint8), chunks=(2, 2), compression='gzip')`,
		read: ByChunk},
	{name: "fletcher32 through libhdf5", script: `
f.create_dataset('data', data=rng.random((17, 3)), chunks=(4, 3), fletcher32=True, compression='gzip')`, read: ByLibrary},
	{name: "compact through libhdf5", script: `
dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
dcpl.set_layout(h5py.h5d.COMPACT)
d = h5py.h5d.create(f.id, b'data', h5py.h5t.STD_I16LE, h5py.h5s.create_simple((5, 3)), dcpl=dcpl)
d.write(h5py.h5s.ALL, h5py.h5s.ALL, np.arange(15, dtype='<i2').reshape(5, 3))`, read: ByLibrary},
	{name: "unwritten chunks through libhdf5", script: `
d = f.create_dataset('data', shape=(10, 2), dtype=np.uint8, chunks=(3, 2), fillvalue=7)
d[0:3] = 1`, read: ByLibrary},
	{name: "external storage through libhdf5", script: `
import os
ext = os.path.join(os.path.dirname(args[0]), 'ext.bin')
d = f.create_dataset('data', shape=(6, 4), dtype=np.uint8, external=[(ext, 0, 24)])
d[:] = rng.integers(0, 255, (6, 4), dtype=np.uint8)`, read: ByLibrary},
	{name: "large rows in few blocks through libhdf5", script: `
dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
d = f.create_dataset('data', data=rng.integers(0, 255, (3000, 3000), dtype=np.uint8), chunks=(1000, 1000), fletcher32=True)`,
		read: ByLibrary},
}

// write writes a fixture into a new directory and returns the file's path.
func (fx fixture) write(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.h5")
	h5pytest.WriteAll(t, []h5pytest.File{fx.file(path)})
	return path
}

func (fx fixture) file(path string) h5pytest.File {
	return h5pytest.File{Path: path, Script: "rng = np.random.default_rng(3)\n" + fx.script}
}

func TestFixtures(t *testing.T) {
	h5pytest.Require(t)
	// One Python process writes all files, one more computes all digests.
	dir := t.TempDir()
	var files []h5pytest.File
	for i, fx := range fixtures {
		sub := filepath.Join(dir, strconv.Itoa(i))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		files = append(files, fx.file(filepath.Join(sub, "f.h5")))
	}
	h5pytest.WriteAll(t, files)
	sources := make([]*Source, len(fixtures))
	var datasets []h5pytest.Dataset
	for i, fx := range fixtures {
		s, err := Open(files[i].Path, fx.opt)
		if err != nil {
			t.Fatalf("%s: %v", fx.name, err)
		}
		sources[i] = s
		datasets = append(datasets, h5pytest.Dataset{Path: files[i].Path, Name: s.Dataset()})
		if s.Labels() != "" {
			datasets = append(datasets, h5pytest.Dataset{Path: files[i].Path, Name: s.Labels()})
		}
	}
	sums := h5pytest.DigestAll(t, datasets)
	for i, fx := range fixtures {
		s := sources[i]
		want := sums[0]
		sums = sums[1:]
		var wantLabels h5pytest.Sum
		if s.Labels() != "" {
			wantLabels, sums = sums[0], sums[1:]
		}
		t.Run(fx.name, func(t *testing.T) {
			checkFixture(t, fx, s, sourcetest.Sum(want), sourcetest.Sum(wantLabels))
		})
	}
}

func checkFixture(t *testing.T, fx fixture, s *Source, want, wantLabels sourcetest.Sum) {
	if read, why := s.Read(); read != fx.read || (read == ByLibrary) != (why != "") {
		t.Errorf("read %v (%q), want %v", read, why, fx.read)
	}
	if s.Labels() != fx.labels {
		t.Errorf("labels %q, want %q", s.Labels(), fx.labels)
	}
	if note := s.Info().Note; (fx.read == ByLibrary) != strings.Contains(note, "libhdf5") {
		t.Errorf("Info().Note = %q", note)
	}
	sourcetest.Check(t, s)
	if got := sourcetest.Digest(t, s); got != want {
		t.Errorf("digest %+v, h5py's %+v", got, want)
	}
	if got := labelDigest(s); got != wantLabels {
		t.Errorf("labels: digest %+v, h5py's %+v", got, wantLabels)
	}

	// Node readers get the same source from its encoding.
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	u, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := sourcetest.Digest(t, u); got != want || u.Info() != s.Info() || labelDigest(u) != wantLabels {
		t.Errorf("unmarshaled: digest %+v, info %+v; want %+v, %+v", got, u.Info(), want, s.Info())
	}
	if b2, _ := u.MarshalBinary(); !bytes.Equal(b, b2) {
		t.Error("encoding differs after a round trip")
	}
}

// labelDigest is the digest of the labels as records (row number, label).
func labelDigest(s *Source) sourcetest.Sum {
	var sum sourcetest.Sum
	if s.Labels() == "" {
		for i := range s.Len() {
			if s.Label(i) != nil {
				panic("a label without a labels dataset")
			}
		}
		return sum
	}
	for i := range s.Len() {
		sum.Add(s.Key(i), s.Label(i))
	}
	return sum
}

func TestKeys(t *testing.T) {
	h5pytest.Require(t)
	s, err := Open(fixtures[0].write(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if k := s.Key(49); !bytes.Equal(k, []byte{49, 0, 0, 0, 0, 0, 0, 0}) {
		t.Errorf("Key(49) = %v", k)
	}
	for _, i := range []int{-1, s.Len()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Key(%d) did not panic", i)
				}
			}()
			s.Key(i)
		}()
	}
}

func TestBadInput(t *testing.T) {
	h5pytest.Require(t)
	dir := t.TempDir()
	var files []h5pytest.File
	writePy := func(name, script string) string {
		p := filepath.Join(dir, name)
		files = append(files, h5pytest.File{Path: p, Script: "rng = np.random.default_rng(1)\n" + script})
		return p
	}
	text := filepath.Join(dir, "text.h5")
	os.WriteFile(text, []byte("no HDF5 here\n"), 0o644)
	good := filepath.Join(dir, "good.h5")
	h5pytest.Write(t, good, `f.create_dataset('data', data=np.random.default_rng(1).random((400, 50)), chunks=(10, 50), compression='gzip')`)
	img, _ := os.ReadFile(good)
	truncated := filepath.Join(dir, "truncated.h5")
	os.WriteFile(truncated, img[:len(img)*2/3], 0o644)
	lmdbDir := filepath.Join(dir, "lmdb")
	os.Mkdir(lmdbDir, 0o755)
	os.WriteFile(filepath.Join(lmdbDir, "data.mdb"), nil, 0o644)

	tests := []struct {
		name, path string
		opt        Options
		want       string
	}{
		{"not HDF5", text, Options{}, "not an HDF5 file"},
		{"an LMDB", lmdbDir, Options{}, "not an HDF5 file: an LMDB dataset"},
		{"truncated", truncated, Options{}, "libhdf5 cannot open it: truncated file"},
		{"missing dataset", writePy("missing.h5", `
f['images'] = np.zeros((3, 2))
f.create_group('g')['more'] = np.zeros(3)`), Options{}, `no dataset "data"; the file has /g/more, /images`},
		{"missing labels asked for", good, Options{Labels: "targets"}, `no labels dataset "targets"; the file has /data`},
		{"row counts differ", writePy("rows.h5", `
f['data'] = np.zeros((10, 2))
f['label'] = np.zeros(9)`), Options{}, "labels /label have 9 rows, dataset /data has 10"},
		{"scalar", writePy("scalar.h5", `f['data'] = 1.5`), Options{}, "dataset /data is a scalar (rank 0)"},
		{"scalar labels", writePy("scalarlabel.h5", `
f['data'] = np.zeros((10, 2))
f['label'] = 3`), Options{}, "dataset /label is a scalar"},
		{"variable-length strings", writePy("vstr.h5", `f.create_dataset('data', data=['a', 'bc'], dtype=h5py.string_dtype())`),
			Options{}, "element type variable-length string: lmdbio delivers"},
		{"references", writePy("ref.h5", `
f['x'] = np.zeros(2)
f.create_dataset('data', data=[f['x'].ref, f['x'].ref], dtype=h5py.ref_dtype)`), Options{}, "element type reference"},
		{"compound", writePy("compound.h5", `f['data'] = np.zeros(4, dtype=[('a', 'i4'), ('b', 'f8')])`),
			Options{}, "element type compound (12 bytes)"},
		{"variable-length sequences", writePy("vlen.h5", `
d = f.create_dataset('data', shape=(2,), dtype=h5py.vlen_dtype(np.uint8))
d[0] = np.arange(3, dtype=np.uint8)`), Options{}, "element type variable-length sequence of uint8"},
		{"filter nobody decodes", writePy("lzf.h5", `f.create_dataset('data', data=np.zeros((10, 4)), chunks=(5, 4), compression='lzf')`),
			Options{}, "filter lzf (filter 32000): neither lmdbio nor this libhdf5 can decode it"},
		{"rows without bytes", writePy("empty.h5", `f['data'] = np.zeros((4, 0))`), Options{}, "rows of shape [0] hold no bytes"},
		{"group, not dataset", writePy("group.h5", `f.create_group('data')`), Options{}, `dataset "data": "data" is not a dataset`},
	}
	h5pytest.WriteAll(t, files)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(tt.path, tt.opt)
			if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Open = %v\nwant ErrBadInput saying %q", err, tt.want)
			}
		})
	}
	if _, err := Open(filepath.Join(dir, "none.h5"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(missing file) = %v", err)
	}
}

// TestCorruptChunk: a damaged deflate stream gives an error at Decode
// that names the chunk; the others still decode.
func TestCorruptChunk(t *testing.T) {
	h5pytest.Require(t)
	path := filepath.Join(t.TempDir(), "f.h5")
	h5pytest.Write(t, path, `f.create_dataset('data', data=np.random.default_rng(2).integers(0, 9, (40, 3, 5), dtype=np.uint8), chunks=(10, 2, 5), compression='gzip')`)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Block 2's second chunk (grid coordinates 2, 1).
	c := s.chunks[2*s.perBlock+1]
	if s.chunkCoord(2, c.cell)[1] != 1 {
		c = s.chunks[2*s.perBlock]
	}
	for i := c.off + 2; i < c.off+c.size-4; i++ {
		img[i] ^= 0x5a
	}
	if err := os.WriteFile(path, img, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = sourcetest.DigestErr(s)
	want := "chunk [2 1 0] at offset"
	if !errors.Is(err, source.ErrCorrupt) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "rows 20-29") {
		t.Errorf("digest of a corrupt chunk: %v\nwant ErrCorrupt naming %q", err, want)
	}
	// Truncated and overlong streams.
	dec := s.Decoder()
	pieces := func(b int) [][]byte {
		var out [][]byte
		for _, e := range s.Pieces(b, nil) {
			out = append(out, img[e.Off:e.End()])
		}
		return out
	}
	dst := make([]byte, s.DecodedLen(0))
	if err := dec.Decode(0, pieces(0), dst); err != nil {
		t.Fatalf("block 0: %v", err)
	}
	p := pieces(0)
	p[0] = p[0][:len(p[0])-3]
	if err := dec.Decode(0, p, dst); !errors.Is(err, source.ErrCorrupt) {
		t.Errorf("short chunk: %v", err)
	}
}

func TestFallbackRows(t *testing.T) {
	for _, tt := range []struct {
		row   int64
		chunk []int64
		want  int64
	}{
		{1 << 10, nil, 4096},
		{10 << 20, nil, 1},
		{1 << 10, []int64{100, 1}, 4000},
		{1 << 10, []int64{8192, 1}, 8192},
		{1 << 20, []int64{100, 4}, 4},
		{1 << 20, []int64{1000, 4}, 4},
	} {
		if got := fallbackRows(tt.row, tt.chunk); got != tt.want {
			t.Errorf("fallbackRows(%d, %v) = %d, want %d", tt.row, tt.chunk, got, tt.want)
		}
	}
}
