package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EPrepDigest: lmdbio digest --prep prints the same prep digest at 1
// rank, 4 ranks as 1x4, 2x2 and 4x1 nodes and with other prep-threads, for
// a random pipeline; --mode lmdb (every rank walks the database) gives the
// file order's digest, which is the shuffled one's: the same samples.
func TestE2EPrepDigest(t *testing.T) {
	db := filepath.Join(t.TempDir(), "jpegs")
	if r := lmdbio(t, nil, "gen", "--jpeg", "--records", "37", "--seed", "4", "--out", db); r.code != 0 {
		t.Fatalf("gen --jpeg:\n%s", r)
	}
	args := []string{"digest", "--prep", "decode,random_resized_crop:48,flip,normalize:imagenet,chw,float16",
		"--shuffle", "global", "--seed", "3", "--epochs", "2", "--batch", "2"}
	want := lmdbio(t, nil, append(args, db)...)
	if want.code != 0 || len(lines(want.stdout)) != 2 || !strings.Contains(want.stdout, "bytes=511488 ") {
		t.Fatalf("1 rank:\n%s", want)
	}
	for _, rn := range []struct {
		name  string
		ranks int
		env   []string
		extra []string
	}{
		{"1 rank, 1 prep thread", 0, nil, []string{"--prep-threads", "1"}},
		{"4 ranks, 1 node", 4, nil, nil},
		{"4 ranks, 2 nodes", 4, []string{"LMDBIO_RANKS_PER_NODE=2"}, []string{"--prep-threads", "3"}},
		{"4 ranks, 4 nodes", 4, []string{"LMDBIO_RANKS_PER_NODE=1"}, nil},
		{"2 ranks, mode lmdb, file order", 2, nil, []string{"--mode", "lmdb", "--shuffle", "none"}},
	} {
		t.Run(rn.name, func(t *testing.T) {
			a := append(append(append([]string(nil), args...), rn.extra...), db)
			var r result
			if rn.ranks == 0 {
				r = lmdbio(t, rn.env, a...)
			} else {
				r = mpirun(t, rn.ranks, rn.env, a...)
			}
			if r.code != 0 || r.stdout != want.stdout {
				t.Errorf("want the 1-rank digest %q:\n%s", want.stdout, r)
			}
		})
	}
}

// TestE2EPrepBadInput: a bad spec is a usage error at open (exit 2); a
// record the pipeline cannot use ends the run with one line naming its key
// (exit 1), never a crash.
func TestE2EPrepBadInput(t *testing.T) {
	db := filepath.Join(t.TempDir(), "jpegs")
	if r := lmdbio(t, nil, "gen", "--jpeg", "--records", "20", "--seed", "4", "--out", db); r.code != 0 {
		t.Fatalf("gen --jpeg:\n%s", r)
	}
	r := lmdbio(t, nil, "digest", "--prep", "decode,center_crop:x", db)
	checkOneLineError(t, r, 2, "lmdbio digest: --prep decode,center_crop:x: prep: step 2")
	r = lmdbio(t, nil, "digest", "--prep", "decode,float16", db)
	checkOneLineError(t, r, 2, "lmdbio digest: --prep decode,float16:")
	// Photographs of 150 to 1000 pixels a side: a crop of 1000 is larger
	// than some.
	r = lmdbio(t, nil, "digest", "--prep", "decode,center_crop:1000", db)
	checkOneLineError(t, r, 1, "lmdbio: "+db+": loader: prep: record ")
	if !strings.Contains(r.stderr, `(key "000000`) || !strings.Contains(r.stderr, "the crop is larger than the image") {
		t.Errorf("the error does not name the key and the problem:\n%s", r)
	}
	// Records that are not images at all (random bytes, not Datums).
	raw := filepath.Join(t.TempDir(), "raw")
	if r := lmdbio(t, nil, "gen", "--records", "10", "--size", "1KiB", "--out", raw); r.code != 0 {
		t.Fatalf("gen:\n%s", r)
	}
	r = lmdbio(t, nil, "digest", "--prep", "decode,center_crop:8", raw)
	checkOneLineError(t, r, 1, "lmdbio: "+raw+": loader: prep: record ")
	// HDF5 rows are refused at open, not prepped as something else.
	h5 := filepath.Join(t.TempDir(), "rows.h5")
	if r := lmdbio(t, nil, "gen", "--format", "hdf5", "--records", "10", "--size", "3x16x16", "--out", h5); r.code != 0 {
		t.Skipf("gen --format hdf5:\n%s", r)
	}
	r = lmdbio(t, nil, "digest", "--prep", "decode,center_crop:8", h5)
	checkOneLineError(t, r, 2, "lmdbio: "+h5+": loader: --prep takes Caffe Datum values")
}
