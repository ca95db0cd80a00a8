package lmdbfmt

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"testing"
)

// TestWalkMatchesLiblmdb compares Walk with liblmdb's own cursor: same keys
// in the same order, and the bytes at each Record's extent hash to the value
// liblmdb returned.
func TestWalkMatchesLiblmdb(t *testing.T) {
	tests := []struct {
		name      string
		minDepth  int
		overflows bool
	}{
		{"tiny", 1, true},
		{"mixed", 2, true},
		{"deep", 3, false},
		{"empty", 0, false},
		{"emptied", 0, false},
		{"single-file", 2, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fx := getFixture(t, tc.name)
			fh, err := os.Open(fx.path)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			st, _ := fh.Stat()
			for _, verify := range []bool{false, true} {
				f, err := OpenOptions(fh, st.Size(), Options{VerifyOverflow: verify})
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				m := f.Meta()
				if m.Depth < tc.minDepth {
					t.Errorf("depth %d, want >= %d", m.Depth, tc.minDepth)
				}
				if m.Entries != uint64(len(fx.oracle)) {
					t.Errorf("meta entries %d, liblmdb cursor saw %d", m.Entries, len(fx.oracle))
				}
				i := 0
				stats, err := f.WalkStats(func(r Record) error {
					if i >= len(fx.oracle) {
						t.Fatalf("record %d beyond the %d liblmdb returned", i, len(fx.oracle))
					}
					want := fx.oracle[i]
					if !bytes.Equal(r.Key, want.Key) {
						t.Fatalf("record %d: key %x, want %x", i, r.Key, want.Key)
					}
					if r.Length != int64(want.Len) {
						t.Fatalf("record %d: length %d, want %d", i, r.Length, want.Len)
					}
					if r.Offset < 0 || r.Offset+r.Length > st.Size() {
						t.Fatalf("record %d: extent %d+%d outside file of %d", i, r.Offset, r.Length, st.Size())
					}
					if got := sha256.Sum256(fx.img[r.Offset : r.Offset+r.Length]); got != want.SHA256 {
						t.Fatalf("record %d (key %x): value bytes at %d+%d differ from liblmdb's", i, r.Key, r.Offset, r.Length)
					}
					i++
					return nil
				})
				if err != nil {
					t.Fatalf("Walk: %v", err)
				}
				if i != len(fx.oracle) {
					t.Fatalf("walked %d records, liblmdb %d", i, len(fx.oracle))
				}
				t.Logf("meta %+v stats %+v", m, stats)
				if tc.overflows != (stats.OverflowRecords > 0) {
					t.Errorf("overflow records %d, want some: %v", stats.OverflowRecords, tc.overflows)
				}
				if stats.Depth != m.Depth || stats.LeafPages != m.LeafPages || stats.BranchPages != m.BranchPages {
					t.Errorf("stats %+v disagree with meta %+v", stats, m)
				}
			}
		})
	}
}

// TestWalkStopsOnCallbackError checks fn's error comes back unchanged.
func TestWalkStopsOnCallbackError(t *testing.T) {
	fx := getFixture(t, "mixed")
	f, err := Open(bytes.NewReader(fx.img), int64(len(fx.img)))
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	n := 0
	err = f.Walk(func(Record) error {
		n++
		if n == 10 {
			return stop
		}
		return nil
	})
	if err != stop || n != 10 {
		t.Fatalf("Walk = %v after %d records, want stop after 10", err, n)
	}
}

// TestConcurrentWalks runs walks in parallel on one File (run with -race).
func TestConcurrentWalks(t *testing.T) {
	fx := getFixture(t, "mixed")
	f, err := Open(bytes.NewReader(fx.img), int64(len(fx.img)))
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			n := 0
			err := f.Walk(func(Record) error { n++; return nil })
			if err == nil && n != len(fx.oracle) {
				err = errors.New("wrong record count")
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
