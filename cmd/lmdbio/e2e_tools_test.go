package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EGen: gen writes the records it says, the same ones for the same
// flags, and refuses to overwrite a dataset unless told.
func TestE2EGen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a")
	r := lmdbio(t, nil, "gen", "--records", "120", "--size", "1KiB,300", "--seed", "5", "--json", "--out", dir)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r)
	}
	var rep struct {
		Type    string `json:"type"`
		Records int64  `json:"records"`
		Bytes   int64  `json:"bytes"`
	}
	ls := lines(r.stdout)
	if len(ls) != 1 || json.Unmarshal([]byte(ls[0]), &rep) != nil {
		t.Fatalf("want one JSON line:\n%s", r)
	}
	d, _ := liblmdbDigest(t, dir, false)
	if rep.Type != "gen" || rep.Records != 120 || d.records != 120 || rep.Bytes != d.bytes {
		t.Errorf("gen reports %+v; liblmdb reads %v", rep, d)
	}

	// Same flags, same records, whatever the insertion order.
	same := filepath.Join(t.TempDir(), "b")
	if r := lmdbio(t, nil, "gen", "--records", "120", "--size", "1KiB,300", "--seed", "5", "--order", "random", same); r.code != 0 {
		t.Fatalf("gen with a positional directory:\n%s", r)
	}
	if d2, _ := liblmdbDigest(t, same, false); d2 != d {
		t.Errorf("same flags gave %v and %v", d, d2)
	}
	otherSeed := filepath.Join(t.TempDir(), "c")
	lmdbio(t, nil, "gen", "--records", "120", "--size", "1KiB,300", "--seed", "6", "--out", otherSeed)
	if d3, _ := liblmdbDigest(t, otherSeed, false); d3 == d {
		t.Errorf("another seed gave the same records")
	}

	r = lmdbio(t, nil, "gen", "--records", "10", "--out", dir)
	checkOneLineError(t, r, 2, "lmdbio: ")
	r = lmdbio(t, nil, "gen", "--records", "10", "--size", "100", "--overwrite", "--out", dir)
	if d4, _ := liblmdbDigest(t, dir, false); r.code != 0 || d4.records != 10 {
		t.Errorf("--overwrite: liblmdb reads %v:\n%s", d4, r)
	}
}

// TestE2EInfo: info --json agrees with liblmdb's statistics.
func TestE2EInfo(t *testing.T) {
	scattered, want := scatteredDB(t)
	for _, path := range []string{scattered, filepath.Join(scattered, "data.mdb")} {
		r := lmdbio(t, nil, "info", "--json", path)
		ls := lines(r.stdout)
		if r.code != 0 || len(ls) != 1 {
			t.Fatalf("want one JSON line:\n%s", r)
		}
		var info struct {
			Type          string `json:"type"`
			Records       int64  `json:"records"`
			Depth         int    `json:"depth"`
			PageSize      int    `json:"page_size"`
			BranchPages   int64  `json:"branch_pages"`
			LeafPages     int64  `json:"leaf_pages"`
			OverflowPages int64  `json:"overflow_pages"`
			ValueBytes    int64  `json:"bytes"`
		}
		if err := json.Unmarshal([]byte(ls[0]), &info); err != nil {
			t.Fatal(err)
		}
		_, st := liblmdbDigest(t, scattered, false)
		if info.Type != "info" || info.Records != want.records || info.ValueBytes != want.bytes || info.Depth != st.Depth ||
			info.PageSize != st.PageSize || info.BranchPages != st.BranchPages || info.LeafPages != st.LeafPages ||
			info.OverflowPages != st.OverflowPages {
			t.Errorf("info %+v\nliblmdb %+v, %v", info, st, want)
		}
		r = lmdbio(t, nil, "info", path)
		if r.code != 0 || !strings.Contains(r.stdout, "records") {
			t.Errorf("text report:\n%s", r)
		}
	}
}

// TestE2EIndex: index builds the index, reuses it, and --rebuild builds anew.
func TestE2EIndex(t *testing.T) {
	dir, want := scatteredDB(t)
	type report struct {
		Type      string `json:"type"`
		Records   int64  `json:"records"`
		Bytes     int64  `json:"bytes"`
		Built     bool   `json:"built"`
		Location  string `json:"location"`
		IndexPath string `json:"index_path"`
	}
	index := func(args ...string) report {
		t.Helper()
		r := lmdbio(t, nil, append(append([]string{"index", "--json"}, args...), dir)...)
		ls := lines(r.stdout)
		var rep report
		if r.code != 0 || len(ls) != 1 || json.Unmarshal([]byte(ls[0]), &rep) != nil {
			t.Fatalf("want one JSON line:\n%s", r)
		}
		if rep.Type != "index" || rep.Records != want.records || rep.Bytes != want.bytes {
			t.Errorf("index %+v, liblmdb %v", rep, want)
		}
		return rep
	}
	sidecar := filepath.Join(dir, "lmdbio.idx")
	if first := index(); !first.Built || first.Location != "sidecar" || first.IndexPath != sidecar || !fileExists(sidecar) {
		t.Errorf("first run: %+v; want built and saved to %s", first, sidecar)
	}
	if second := index(); second.Built || second.Location != "sidecar" || second.IndexPath != sidecar {
		t.Errorf("second run should load what the first saved: %+v", second)
	}
	if rebuilt := index("--rebuild"); !rebuilt.Built {
		t.Errorf("--rebuild loaded the saved index: %+v", rebuilt)
	}
	r := lmdbio(t, nil, "index", dir)
	if r.code != 0 || !strings.HasPrefix(r.stdout, fmt.Sprintf("records=%d bytes=%d ", want.records, want.bytes)) {
		t.Errorf("text report:\n%s", r)
	}
}
