package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/hdf5/h5pytest"
)

// hdf5Files writes the HDF5 layouts the loader must read, with h5py, and
// returns them with h5py's own digest of their rows.
func hdf5Files(t *testing.T) map[string]struct {
	path, dataset string
	want          digestLine
} {
	t.Helper()
	h5pytest.Require(t)
	dir := t.TempDir()
	type spec struct{ name, dataset, script string }
	specs := []spec{
		{"contiguous float32", "data", `f['data'] = np.random.default_rng(1).random((300, 7, 5), dtype=np.float32)`},
		{"chunked gzip images with labels", "data", `
rng = np.random.default_rng(2)
f.create_dataset('data', data=rng.integers(0, 64, (500, 3, 8, 8), dtype=np.uint8), chunks=(32, 3, 8, 8), compression='gzip')
f['label'] = rng.integers(0, 1000, 500).astype(np.int64)`},
		{"chunks not dividing rows", "data", `
f.create_dataset('data', data=np.arange(333 * 10, dtype='>i4').reshape(333, 10), chunks=(50, 10), compression='gzip', compression_opts=1)`},
		{"chunks cutting rows", "data", `
f.create_dataset('data', data=np.random.default_rng(3).integers(0, 9, (120, 6, 40), dtype=np.int16), chunks=(16, 4, 16), compression='gzip')`},
		{"shuffle and gzip", "data", `
f.create_dataset('data', data=np.random.default_rng(4).normal(size=(200, 33)), chunks=(25, 33), shuffle=True, compression='gzip')`},
		{"dataset in a group", "train/images", `
g = f.create_group('train')
g.create_dataset('images', data=np.random.default_rng(5).integers(0, 255, (150, 64), dtype=np.uint8), chunks=(10, 64))`},
	}
	var files []h5pytest.File
	var sets []h5pytest.Dataset
	for i, s := range specs {
		p := filepath.Join(dir, fmt.Sprintf("f%d.h5", i))
		files = append(files, h5pytest.File{Path: p, Script: s.script})
		sets = append(sets, h5pytest.Dataset{Path: p, Name: s.dataset})
	}
	h5pytest.WriteAll(t, files)
	sums := h5pytest.DigestAll(t, sets)
	out := map[string]struct {
		path, dataset string
		want          digestLine
	}{}
	for i, s := range specs {
		out[s.name] = struct {
			path, dataset string
			want          digestLine
		}{sets[i].Path, s.dataset, digestLine{int64(sums[i].Records), sums[i].Bytes, sums[i].Digest}}
	}
	return out
}

// TestE2EHDF5Digest: lmdbio digest of HDF5 files written by h5py prints
// the digest h5py's own reading gives, at 1 rank and at 4 ranks on 2
// virtual nodes, in every mode that reads HDF5 and with every shuffle.
func TestE2EHDF5Digest(t *testing.T) {
	files := hdf5Files(t)
	for name, f := range files {
		t.Run(name, func(t *testing.T) {
			base := []string{"digest", "--dataset", f.dataset}
			runs := []struct {
				ranks int
				args  []string
			}{
				{0, nil},
				{0, []string{"--mode", "lmm+dio+prov", "--batch", "7"}},
				{4, nil},
				{4, []string{"--shuffle", "global", "--epochs", "2", "--batch", "5"}},
				{4, []string{"--shuffle", "chunk", "--chunk", "4KiB", "--cache", "0", "--batch", "3"}},
			}
			for _, rn := range runs {
				args := append(append(append([]string{}, base...), rn.args...), f.path)
				var r result
				if rn.ranks == 0 {
					r = lmdbio(t, nil, args...)
				} else {
					r = mpirun(t, rn.ranks, []string{"LMDBIO_RANKS_PER_NODE=2"}, args...)
				}
				want := f.want.String()
				got := strings.TrimSpace(r.stdout)
				if strings.Contains(strings.Join(rn.args, " "), "--epochs 2") {
					want = fmt.Sprintf("epoch=0 %s\nepoch=1 %s", f.want, f.want)
				}
				if r.code != 0 || got != want {
					t.Errorf("%v: got\n%s\nh5py gives\n%s\n%s", rn.args, got, want, r)
				}
			}
		})
	}
}

// TestE2EHDF5DigestBadInput: an LMDB-only mode on HDF5, and a corrupt
// compressed chunk, end the job with status 2 and one line, also under
// mpirun.
func TestE2EHDF5DigestBadInput(t *testing.T) {
	f := hdf5Files(t)["chunked gzip images with labels"]
	r := mpirun(t, 4, []string{"LMDBIO_RANKS_PER_NODE=2"}, "digest", "--mode", "lmdb", f.path)
	checkMPIError(t, r, "lmdbio: "+f.path+": ")
	if !strings.Contains(r.stderr, "HDF5 files are read in the modes with an index") {
		t.Errorf("lmdb mode on HDF5: %s", r)
	}
	img, err := os.ReadFile(f.path)
	if err != nil {
		t.Fatal(err)
	}
	// Damage the middle of the file, where the compressed chunks are.
	for i := len(img) / 2; i < len(img)/2+64; i++ {
		img[i] ^= 0x5a
	}
	bad := filepath.Join(t.TempDir(), "corrupt.h5")
	if err := os.WriteFile(bad, img, 0o644); err != nil {
		t.Fatal(err)
	}
	r = lmdbio(t, nil, "digest", bad)
	checkOneLineError(t, r, 2, "lmdbio: "+bad+": ")
	if !strings.Contains(r.stderr, "chunk") {
		t.Errorf("a corrupt chunk is not named: %s", r)
	}
}
