package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/internal/hdf5"
	"github.com/lmdbio/lmdbio/internal/hdf5/h5pytest"
	"github.com/lmdbio/lmdbio/internal/source/sourcetest"
)

// TestE2EHDF5Gen: files lmdbio gen --format hdf5 writes read back in h5py
// with the layout asked for and the digest lmdbio's source computes.
func TestE2EHDF5Gen(t *testing.T) {
	h5pytest.Require(t)
	dir := t.TempDir()
	for _, tt := range []struct {
		args   []string
		layout string // h5py's chunks, compression, shuffle
	}{
		{[]string{"--size", "3x16x16"}, "(300, 3, 16, 16) None None False"},
		{[]string{"--size", "3x16x16", "--chunk", "32", "--gzip", "4"}, "(300, 3, 16, 16) (32, 3, 16, 16) gzip False"},
		{[]string{"--size", "3x16x16", "--chunk", "7", "--gzip", "1", "--shuffle-filter"}, "(300, 3, 16, 16) (7, 3, 16, 16) gzip True"},
		{[]string{"--size", "1KiB", "--chunk", "50"}, "(300, 1024) (50, 1024) None False"},
	} {
		path := filepath.Join(dir, strings.Join(tt.args, "_")+".h5")
		r := lmdbio(t, nil, append([]string{"gen", "--format", "hdf5", "--records", "300", "--out", path}, tt.args...)...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "wrote "+path+": 300 rows") {
			t.Fatalf("gen:\n%s", r)
		}
		out := h5pytest.Run(t, `
f = h5py.File(args[0], 'r')
d = f['data']
print(d.shape, d.chunks, d.compression, d.shuffle)`, path)
		if got := strings.TrimSpace(out); got != tt.layout {
			t.Errorf("%v: h5py sees %s, want %s", tt.args, got, tt.layout)
		}
		src, err := hdf5.Open(path, hdf5.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := sourcetest.Digest(t, src), h5pytest.Digest(t, path, "data"); got != sourcetest.Sum(want) {
			t.Errorf("%v: digest %+v, h5py's %+v", tt.args, got, want)
		}
	}
	for _, args := range [][]string{
		{"--size", "3x0x2"},
		{"--size", "110KiB,20KiB"},
		{"--size", "3x8x8", "--gzip", "11"},
		{"--size", "3x8x8", "--datum"},
		{"--size", "3x8x8", "--format", "tiff"},
	} {
		r := lmdbio(t, nil, append([]string{"gen", "--format", "hdf5", "--out", filepath.Join(dir, "bad.h5")}, args...)...)
		checkOneLineError(t, r, 2, "lmdbio gen: ")
	}
}

// hdf5InfoFile writes, with h5py, a file with a dataset of every reading
// path: images in a group read by chunk, labels by offset, a dataset only
// libhdf5 reads, and one lmdbio cannot deliver.
func hdf5InfoFile(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "mixed.hdf5")
	h5pytest.Write(t, path, `
rng = np.random.default_rng(4)
g = f.create_group('train')
g.create_dataset('images', data=rng.integers(0, 64, (90, 3, 8, 8), dtype=np.uint8), chunks=(16, 3, 4, 8), compression='gzip', shuffle=True)
g['labels'] = np.arange(90, dtype=np.int64)
f.create_dataset('checked', data=rng.random((20, 4)), chunks=(5, 4), fletcher32=True)
f.create_dataset('names', data=['a', 'b'], dtype=h5py.string_dtype())`)
	return path
}

func TestE2EHDF5Info(t *testing.T) {
	h5pytest.Require(t)
	path := hdf5InfoFile(t)
	r := lmdbio(t, nil, "info", "--json", "--verify", "--dataset", "train/images", "--labels", "train/labels", path)
	ls := lines(r.stdout)
	if r.code != 0 || len(ls) != 5 {
		t.Fatalf("want 5 JSON lines:\n%s", r)
	}
	datasets := map[string]hdf5DatasetInfo{}
	for _, l := range ls[:4] {
		var d hdf5DatasetInfo
		if err := json.Unmarshal([]byte(l), &d); err != nil || d.Type != "hdf5_dataset" {
			t.Fatalf("%v: %s", err, l)
		}
		datasets[d.Name] = d
	}
	img := datasets["/train/images"]
	if img.Read != "chunks" || img.Layout != "chunked" || strings.Join(img.Filters, " ") != "shuffle deflate(4)" ||
		dims(img.Chunk) != "16x3x4x8" || img.LogicalBytes != 90*192 || img.StoredBytes <= 0 || img.StoredBytes >= img.LogicalBytes {
		t.Errorf("images: %+v", img)
	}
	if d := datasets["/checked"]; d.Read != "libhdf5" || !strings.Contains(d.Why, "fletcher32") {
		t.Errorf("checked: %+v", d)
	}
	if d := datasets["/names"]; d.Read != "none" || !strings.Contains(d.Why, "variable-length string") {
		t.Errorf("names: %+v", d)
	}
	if d := datasets["/train/labels"]; d.Read != "offset" || d.ElementType != "int64" {
		t.Errorf("labels: %+v", d)
	}
	var sum hdf5Info
	if err := json.Unmarshal([]byte(ls[4]), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Type != "info" || sum.Format != "hdf5" || sum.Dataset != "/train/images" || sum.Labels != "/train/labels" ||
		sum.Records != 90 || sum.RowBytes != 192 || sum.LabelBytes != 8 || sum.Blocks != 6 || sum.MaxBlockBytes != 16*192 ||
		!sum.Verified || sum.Note != "" {
		t.Errorf("summary %+v", sum)
	}

	// The fallback is said once, with its reason.
	r = lmdbio(t, nil, "info", "--verify", "--dataset", "checked", path)
	if r.code != 0 || strings.Count(r.stdout, "read through libhdf5, not by offset: filter fletcher32") != 1 ||
		!strings.Contains(r.stdout, "verified") {
		t.Errorf("fallback:\n%s", r)
	}
	// Text, without labels (the file has none named label).
	r = lmdbio(t, nil, "info", "--dataset", "/train/images", path)
	if r.code != 0 || !strings.Contains(r.stdout, "90 rows of /train/images (192 bytes each), labels none") {
		t.Errorf("text report:\n%s", r)
	}
	r = lmdbio(t, nil, "info", "--verify", t.TempDir())
	checkOneLineError(t, r, 2, "lmdbio: ")
}

// TestE2EHDF5BadInput: every kind of bad HDF5 input ends lmdbio info with
// status 2 within seconds and one line naming the file and the problem.
func TestE2EHDF5BadInput(t *testing.T) {
	h5pytest.Require(t)
	dir := t.TempDir()
	var files []h5pytest.File
	h5 := func(name, script string) string {
		p := filepath.Join(dir, name)
		files = append(files, h5pytest.File{Path: p, Script: script})
		return p
	}
	good := h5("good.h5", `f.create_dataset('data', data=np.arange(20000, dtype=np.int32).reshape(400, 50) % 7, chunks=(40, 50), compression='gzip')`)
	cases := []struct {
		name string
		path string
		args []string
		want string
	}{
		{"not HDF5", filepath.Join(dir, "text.h5"), nil, "neither an LMDB nor an HDF5 file"},
		{"truncated", filepath.Join(dir, "truncated.h5"), nil, "libhdf5 cannot open it: truncated file"},
		{"missing dataset", h5("missing.h5", `
f['images'] = np.zeros((3, 2))
f.create_group('g')['labels'] = np.zeros(3)`), nil, `no dataset "data"; the file has /g/labels, /images`},
		{"missing labels", good, []string{"--labels", "targets"}, `no labels dataset "targets"; the file has /data`},
		{"row counts differ", h5("rows.h5", `
f['data'] = np.zeros((10, 2))
f['label'] = np.zeros(9)`), nil, "labels /label have 9 rows, dataset /data has 10"},
		{"scalar", h5("scalar.h5", `f['data'] = 1.5`), nil, "dataset /data is a scalar (rank 0)"},
		{"variable-length strings", h5("vstr.h5", `f.create_dataset('data', data=['a', 'bc'], dtype=h5py.string_dtype())`),
			nil, "element type variable-length string"},
		{"references", h5("ref.h5", `
f['x'] = np.zeros(2)
f.create_dataset('data', data=[f['x'].ref], dtype=h5py.ref_dtype)`), nil, "element type reference"},
		{"compound", h5("compound.h5", `f['data'] = np.zeros(4, dtype=[('a', 'i4'), ('b', 'f8')])`), nil, "element type compound"},
		{"filter nobody decodes", h5("lzf.h5", `f.create_dataset('data', data=np.zeros((10, 4)), chunks=(5, 4), compression='lzf')`),
			nil, "filter lzf (filter 32000): neither lmdbio nor this libhdf5 can decode it"},
		{"corrupt chunk", filepath.Join(dir, "corrupt.h5"), []string{"--verify"}, "rows 120-159: chunk [3 0] at offset"},
	}
	h5pytest.WriteAll(t, files)
	os.WriteFile(filepath.Join(dir, "text.h5"), []byte("text named like HDF5\n"), 0o644)
	img, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "truncated.h5"), img[:len(img)/2], 0o644)
	src, err := hdf5.Open(good, hdf5.Options{})
	if err != nil {
		t.Fatal(err)
	}
	chunk := src.Pieces(3, nil)[0]
	for i := chunk.Off + 10; i < chunk.End()-10; i++ {
		img[i] ^= 0x33
	}
	os.WriteFile(filepath.Join(dir, "corrupt.h5"), img, 0o644)

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			r := lmdbio(t, nil, append(append([]string{"info"}, c.args...), c.path)...)
			checkOneLineError(t, r, 2, "lmdbio: "+c.path+": ")
			if !strings.Contains(r.stderr, c.want) || r.stdout != "" {
				t.Errorf("want an error saying %q and no report:\n%s", c.want, r)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}
