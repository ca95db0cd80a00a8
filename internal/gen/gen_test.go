//go:build cgo

package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/PowerDNS/lmdb-go/lmdb"
	"github.com/lmdbio/lmdbio/internal/datum"
)

// scan reads a dataset back: a digest of its (key, value) pairs, which the
// cursor visits in key order whatever the insertion order, plus counts.
type scan struct {
	digest   [32]byte
	records  int
	bytes    int64
	overflow int64
}

func readBack(t *testing.T, dir string, check func(key, value []byte) error) scan {
	t.Helper()
	env, err := lmdb.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if err := env.Open(dir, lmdb.Readonly|lmdb.NoLock, 0); err != nil {
		t.Fatal(err)
	}
	var s scan
	h := sha256.New()
	err = env.View(func(txn *lmdb.Txn) error {
		txn.RawRead = true
		dbi, err := txn.OpenRoot(0)
		if err != nil {
			return err
		}
		c, err := txn.OpenCursor(dbi)
		if err != nil {
			return err
		}
		defer c.Close()
		for k, v, err := c.Get(nil, nil, lmdb.First); ; k, v, err = c.Get(nil, nil, lmdb.Next) {
			if lmdb.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			for _, b := range [][]byte{k, v} {
				h.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(b))))
				h.Write(b)
			}
			s.records++
			s.bytes += int64(len(v))
			if check != nil {
				if err := check(k, v); err != nil {
					return fmt.Errorf("record %q: %w", k, err)
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := env.Stat()
	if err != nil {
		t.Fatal(err)
	}
	s.overflow = int64(st.OverflowPages)
	copy(s.digest[:], h.Sum(nil))
	return s
}

// checkRecord verifies a record against the generator and, for datums,
// its framing and label.
func checkRecord(opt Options) func(key, value []byte) error {
	recs := newRecords(opt)
	return func(key, value []byte) error {
		i, err := strconv.Atoi(string(key[:8]))
		if err != nil {
			return err
		}
		wantKey, wantValue := recs.record(i)
		if !bytes.Equal(key, wantKey) || !bytes.Equal(value, wantValue) {
			return errors.New("differs from the generator's record")
		}
		if !opt.Datum {
			return nil
		}
		d, err := datum.Unmarshal(value)
		if err != nil {
			return err
		}
		synset := fmt.Sprintf("_n%08d/", firstSynset+int(d.Label)*1009)
		if d.Channels != 3 || int(d.Height*d.Width*3) != len(d.Data) || d.Encoded ||
			d.Label < 0 || d.Label >= numClasses || !strings.Contains(string(key), synset) {
			return fmt.Errorf("bad datum %dx%dx%d, %d bytes, label %d", d.Channels, d.Height, d.Width, len(d.Data), d.Label)
		}
		return nil
	}
}

func TestWrite(t *testing.T) {
	tests := []struct {
		name     string
		opt      Options
		overflow bool // values must spill into overflow pages
	}{
		{"raw key order", Options{Records: 2000, MeanSize: 2048, StdDev: 512, Seed: 1}, false},
		{"raw random order", Options{Records: 2000, MeanSize: 2048, StdDev: 512, Seed: 2, Order: Random, TxnRecords: 150}, false},
		{"datum key order", Options{Records: 2000, MeanSize: 2048, StdDev: 512, Seed: 3, Datum: true}, false},
		{"datum overflow random", Options{Records: 50, MeanSize: 100 << 10, StdDev: 10 << 10, Seed: 4, Datum: true, Order: Random, TxnRecords: 7}, true},
		{"raw overflow tiny sizes", Options{Records: 50, MeanSize: 100 << 10, StdDev: 200 << 10, Seed: 5}, true},
		{"empty", Options{MeanSize: 10}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "db")
			sum, err := Write(dir, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			got := readBack(t, dir, checkRecord(tt.opt))
			st, err := os.Stat(filepath.Join(dir, "data.mdb"))
			if err != nil {
				t.Fatal(err)
			}
			if sum.Records != tt.opt.Records || got.records != tt.opt.Records ||
				sum.Bytes != got.bytes || sum.FileSize != st.Size() || sum.Elapsed <= 0 {
				t.Errorf("Summary %+v; read back %d records, %d bytes; file %d bytes", sum, got.records, got.bytes, st.Size())
			}
			if tt.overflow && got.overflow == 0 {
				t.Error("no overflow pages")
			}
			if tt.opt.Records >= 1000 {
				// The mean value size is MeanSize within a few standard
				// errors (plus the Datum framing).
				mean := float64(got.bytes) / float64(got.records)
				if tol := 5*float64(tt.opt.StdDev)/math.Sqrt(float64(got.records)) + 30; math.Abs(mean-float64(tt.opt.MeanSize)) > tol {
					t.Errorf("mean value size %.1f, want %d ± %.1f", mean, tt.opt.MeanSize, tol)
				}
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	base := Options{Records: 300, MeanSize: 3000, StdDev: 1000, Seed: 42, Datum: true, TxnRecords: 40}
	variant := func(f func(*Options)) Options { o := base; f(&o); return o }
	tests := []struct {
		name string
		opt  Options
		same bool
	}{
		{"same options", base, true},
		{"random order", variant(func(o *Options) { o.Order = Random }), true},
		{"other transaction size", variant(func(o *Options) { o.TxnRecords = 1 }), true},
		{"other seed", variant(func(o *Options) { o.Seed = 43 }), false},
		{"raw values", variant(func(o *Options) { o.Datum = false }), false},
	}
	digest := func(opt Options) [32]byte {
		dir := filepath.Join(t.TempDir(), "db")
		if _, err := Write(dir, opt); err != nil {
			t.Fatal(err)
		}
		return readBack(t, dir, nil).digest
	}
	want := digest(base)
	for _, tt := range tests {
		if got := digest(tt.opt); (got == want) != tt.same {
			t.Errorf("%s: digest equal to the base's: %v, want %v", tt.name, got == want, tt.same)
		}
	}
}

func TestGrowMap(t *testing.T) {
	opt := Options{Records: 60, MeanSize: 100 << 10, StdDev: 1 << 10, Seed: 9, Order: Random, TxnRecords: 25}
	small, roomy := filepath.Join(t.TempDir(), "small"), filepath.Join(t.TempDir(), "roomy")
	if _, err := write(small, opt, 1<<20); err != nil {
		t.Fatalf("starting from a 1 MiB map: %v", err)
	}
	if _, err := Write(roomy, opt); err != nil {
		t.Fatal(err)
	}
	if a, b := readBack(t, small, nil), readBack(t, roomy, nil); a.digest != b.digest || a.records != opt.Records {
		t.Errorf("grown map: %d records, digest equal %v", a.records, a.digest == b.digest)
	}
}

func TestOverwrite(t *testing.T) {
	dir := t.TempDir()
	opt := Options{Records: 10, MeanSize: 100, Seed: 1}
	if _, err := Write(dir, opt); err != nil {
		t.Fatal(err)
	}
	opt.Records = 5
	if _, err := Write(dir, opt); !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second Write: %v, want ErrExist naming the path", err)
	}
	opt.Overwrite = true
	if _, err := Write(dir, opt); err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, dir, nil).records; got != 5 {
		t.Errorf("after overwrite: %d records, want 5", got)
	}
}

func TestOptionsErrors(t *testing.T) {
	tests := []Options{
		{Records: -1, MeanSize: 1},
		{Records: 1, MeanSize: 0},
		{Records: 1, MeanSize: 1, StdDev: -1},
		{Records: 1, MeanSize: 1, TxnRecords: -1},
		{Records: 1, MeanSize: 1, Order: 7},
	}
	for _, opt := range tests {
		dir := filepath.Join(t.TempDir(), "db")
		if _, err := Write(dir, opt); !errors.Is(err, ErrOptions) {
			t.Errorf("Write(%+v) = %v, want ErrOptions", opt, err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Write(%+v) created %s", opt, dir)
		}
	}
}

func TestNotADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(file, Options{Records: 1, MeanSize: 1}); err == nil {
		t.Error("Write into a regular file succeeded")
	}
}

func TestProgress(t *testing.T) {
	var calls []int
	opt := Options{Records: 95, MeanSize: 50, Seed: 1, TxnRecords: 10,
		Progress: func(done, total int) {
			if total != 95 {
				t.Errorf("Progress total %d, want 95", total)
			}
			calls = append(calls, done)
		}}
	if _, err := Write(t.TempDir(), opt); err != nil {
		t.Fatal(err)
	}
	want := []int{10, 20, 30, 40, 50, 60, 70, 80, 90, 95}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("Progress calls %v, want %v", calls, want)
	}
}

func TestShape(t *testing.T) {
	for _, size := range []int{1, 2, 3, 100, 2048, 110 << 10, 1 << 20} {
		h, w := shape(size)
		got := 3 * h * w
		if h < 1 || w < h || math.Abs(float64(got-size)) > float64(3*h)/2+3 {
			t.Errorf("shape(%d) = %dx%d, %d bytes", size, h, w, got)
		}
	}
}

func TestAppendKey(t *testing.T) {
	tests := []struct {
		i, label int
		want     string
	}{
		{42, 0, "00000042_n01440764/n01440764_42.JPEG"},
		{0, 1, "00000000_n01441773/n01441773_0.JPEG"},
		{123456789, 999, "123456789_n02448755/n02448755_123456789.JPEG"},
	}
	for _, tt := range tests {
		if got := string(appendKey(nil, tt.i, tt.label)); got != tt.want {
			t.Errorf("appendKey(%d, %d) = %q, want %q", tt.i, tt.label, got, tt.want)
		}
	}
}
