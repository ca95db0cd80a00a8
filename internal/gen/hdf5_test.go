//go:build cgo

package gen

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/hdf5"
	"github.com/lmdbio/lmdbio/internal/hdf5/h5pytest"
	"github.com/lmdbio/lmdbio/internal/source/sourcetest"
)

// TestWriteHDF5: h5py reads what WriteHDF5 wrote, with the layout asked
// for, and its digest equals lmdbio's; the rows depend on the seed only.
func TestWriteHDF5(t *testing.T) {
	h5pytest.Require(t)
	tests := []struct {
		name    string
		opt     HDF5Options
		layout  string // as h5py reports it: chunks, compression, shuffle
		records int
	}{
		{"contiguous", HDF5Options{Records: 70, Shape: []int{3, 8, 8}, Seed: 5}, "None None False", 70},
		{"gzip", HDF5Options{Records: 70, Shape: []int{3, 8, 8}, Seed: 5, ChunkRows: 16, Gzip: 4}, "(16, 3, 8, 8) gzip False", 70},
		{"shuffle gzip", HDF5Options{Records: 70, Shape: []int{3, 8, 8}, Seed: 5, Gzip: 1, Shuffle: true}, "(5461, 3, 8, 8) gzip True", 70},
		{"chunks only, bytes rows", HDF5Options{Records: 9, Shape: []int{1000}, Seed: 5, ChunkRows: 4}, "(4, 1000) None False", 9},
		{"chunk larger than the file", HDF5Options{Records: 3, Shape: []int{10}, Seed: 5, ChunkRows: 8, Gzip: 9}, "(8, 10) gzip False", 3},
		{"empty", HDF5Options{Shape: []int{4}, Seed: 5, Gzip: 2}, "(262144, 4) gzip False", 0},
	}
	var base sourcetest.Sum
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gen.h5")
			sum, err := WriteHDF5(path, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			st, _ := os.Stat(path)
			row := int64(1)
			for _, d := range tt.opt.Shape {
				row *= int64(d)
			}
			if sum.Records != tt.records || sum.FileSize != st.Size() || sum.Bytes != int64(tt.records)*row {
				t.Errorf("summary %+v", sum)
			}
			out := h5pytest.Run(t, `
f = h5py.File(args[0], 'r')
d, l = f['data'], f['label']
ok = d.dtype == np.uint8 and l.dtype == np.dtype('<i8') and l.shape == d.shape[:1]
if d.shape[0]:
    v = d[:]
    ok = ok and v.min() >= 64 and v.max() <= 127 and l[:].min() >= 0 and l[:].max() < 1000
print(ok, d.shape, d.chunks, d.compression, d.shuffle)`, path)
			shape := "(" + strconv.Itoa(tt.records)
			for _, d := range tt.opt.Shape {
				shape += ", " + strconv.Itoa(d)
			}
			want := "True " + shape + ") " + tt.layout
			if strings.TrimSpace(out) != want {
				t.Errorf("h5py sees %q, want %q", strings.TrimSpace(out), want)
			}
			src, err := hdf5.Open(path, hdf5.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := sourcetest.Digest(t, src)
			if py := h5pytest.Digest(t, path, "data"); got != sourcetest.Sum(py) || src.Labels() != "/label" {
				t.Errorf("digest %+v, h5py's %+v; labels %q", got, py, src.Labels())
			}
			// The first three files hold the same rows.
			if i == 0 {
				base = got
			} else if i < 3 && got != base {
				t.Errorf("digest %+v differs from the contiguous file's %+v", got, base)
			}
		})
	}
}

func TestWriteHDF5Errors(t *testing.T) {
	dir := t.TempDir()
	for _, opt := range []HDF5Options{
		{Records: -1, Shape: []int{1}},
		{Records: 1},
		{Records: 1, Shape: []int{3, 0}},
		{Records: 1, Shape: []int{1 << 20}, ChunkRows: 1 << 13},
		{Records: 1, Shape: []int{1}, Gzip: 10},
		{Records: 1, Shape: []int{1}, ChunkRows: -2},
	} {
		p := filepath.Join(dir, "bad.h5")
		if _, err := WriteHDF5(p, opt); !errors.Is(err, ErrOptions) {
			t.Errorf("WriteHDF5(%+v) = %v, want ErrOptions", opt, err)
		}
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("WriteHDF5(%+v) created the file", opt)
		}
	}
	p := filepath.Join(dir, "twice.h5")
	opt := HDF5Options{Records: 2, Shape: []int{4}}
	if _, err := WriteHDF5(p, opt); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteHDF5(p, opt); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second write: %v, want ErrExist", err)
	}
	opt.Overwrite = true
	if _, err := WriteHDF5(p, opt); err != nil {
		t.Errorf("overwrite: %v", err)
	}
	if _, err := WriteHDF5(filepath.Join(dir, "new", "dir.h5"), opt); err != nil {
		t.Errorf("write into a new directory: %v", err)
	}
	if _, err := WriteHDF5(dir, opt); err == nil || strings.Contains(err.Error(), "code -1") {
		t.Errorf("write over a directory: %v", err)
	}
}
