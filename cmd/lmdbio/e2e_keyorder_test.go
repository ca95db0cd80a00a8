package main

import (
	"strconv"
	"strings"
	"testing"
)

// TestE2EKeyOrderDigest: shuffle none (key order) and shuffle file (the
// file's order) deliver the records liblmdb's cursor reads, each once, on
// a database written in key order (as convert_imageset writes it) and on
// one written in a random order, in one process and across ranks and
// nodes: the digest is liblmdb's.
func TestE2EKeyOrderDigest(t *testing.T) {
	for _, order := range []string{"key", "random"} {
		dir, want := genDB(t, "--records", "700", "--size", "300,100", "--order", order)
		for _, shuffle := range []string{"none", "file"} {
			r := lmdbio(t, nil, "digest", "--shuffle", shuffle, "--batch", "9", dir)
			if got := strings.TrimSpace(r.stdout); r.code != 0 || got != want.String() {
				t.Errorf("%s, shuffle %s: got %q, want %q:\n%s", order, shuffle, got, want, r)
			}
			for _, n := range []int{3, 4} {
				r := mpirun(t, n, []string{"LMDBIO_RANKS_PER_NODE=2"}, "digest", "--shuffle", shuffle, "--batch", "9", dir)
				if got := strings.TrimSpace(r.stdout); r.code != 0 || got != want.String() {
					t.Errorf("%s, shuffle %s, %s ranks: got %q, want %q:\n%s", order, shuffle, strconv.Itoa(n), got, want, r)
				}
			}
		}
	}
}
