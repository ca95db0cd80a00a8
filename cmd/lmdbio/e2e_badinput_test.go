package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
)

// LMDB layout facts the corruption cases need (liblmdb 0.9, 64-bit): the
// page header is pgno u64, pad u16, flags u16, lower u16, upper u16, then
// the node pointers; meta pages 0 and 1 hold, after the header, magic u32,
// version u32, address u64, mapsize u64, the free and main MDB_db records
// (48 bytes each, root page last), last page u64 and transaction id u64.
const (
	pageSize       = 4096
	hdrFlags       = 10
	hdrLower       = 12
	hdrPtrs        = 16
	metaMagic      = 16
	metaMainRoot   = 16 + 24 + 48 + 40
	metaTxnID      = 16 + 24 + 96 + 8
	flagBranch     = 0x01
	flagLeaf       = 0x02
	nodeKsize      = 6
	nodeHeaderSize = 8
)

// dbPages finds, in an LMDB data file image, the main tree's root page and
// its leftmost path down to a leaf.
func dbPages(t *testing.T, img []byte) (path []int) {
	t.Helper()
	meta := func(i int) []byte { return img[i*pageSize:] }
	m := meta(0)
	if binary.LittleEndian.Uint64(meta(1)[metaTxnID:]) > binary.LittleEndian.Uint64(m[metaTxnID:]) {
		m = meta(1)
	}
	pg := int(binary.LittleEndian.Uint64(m[metaMainRoot:]))
	for {
		path = append(path, pg)
		p := img[pg*pageSize : (pg+1)*pageSize]
		flags := binary.LittleEndian.Uint16(p[hdrFlags:])
		if flags&flagLeaf != 0 {
			return path
		}
		if flags&flagBranch == 0 || len(path) > 10 {
			t.Fatalf("page %d: flags 0x%x, not a tree page", pg, flags)
		}
		node := p[binary.LittleEndian.Uint16(p[hdrPtrs:]):]
		pg = int(binary.LittleEndian.Uint16(node)) | int(binary.LittleEndian.Uint16(node[2:]))<<16 |
			int(binary.LittleEndian.Uint16(node[4:]))<<32
	}
}

// firstNode is the offset in the image of node 0 of page pg.
func firstNode(img []byte, pg int) int {
	return pg*pageSize + int(binary.LittleEndian.Uint16(img[pg*pageSize+hdrPtrs:]))
}

// TestE2EDigestBadInput: every kind of bad dataset ends lmdbio digest (and
// info and index) with status 2 and one line naming the path, on one rank
// and on four.
func TestE2EDigestBadInput(t *testing.T) {
	for _, c := range badInputs(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := c.make(t)
			for _, args := range [][]string{{"digest"}, {"info"}, {"index"}} {
				r := lmdbio(t, nil, append(args, path)...)
				checkOneLineError(t, r, 2, "lmdbio: "+path+": ")
				checkNoRepeats(t, r.stderr)
				if r.stdout != "" {
					t.Errorf("%s printed a report for a bad dataset:\n%s", args, r)
				}
			}
			if c.mpi && mpirunPath != "" {
				r := mpirun(t, 4, []string{"LMDBIO_RANKS_PER_NODE=2"}, "digest", path)
				checkMPIError(t, r, "lmdbio: "+path+": ")
				if r.stdout != "" {
					t.Errorf("printed a digest for a bad dataset:\n%s", r)
				}
				checkNoneLeft(t, path, 2*time.Second)
			}
		})
	}
}

// TestE2EDigestBadInputModeLMDB: the plain-LMDB mode (liblmdb's cursor)
// meets the same bad datasets. Its digest must agree with the other modes,
// so it must refuse what they refuse rather than print a digest of part of
// the data, or of a sub-database's record.
func TestE2EDigestBadInputModeLMDB(t *testing.T) {
	for _, c := range badInputs(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := c.make(t)
			r := lmdbio(t, nil, "digest", "--mode", "lmdb", path)
			checkOneLineError(t, r, 2, "lmdbio: "+path+": ")
			if r.stdout != "" {
				t.Errorf("printed a digest for a bad dataset:\n%s", r)
			}
		})
	}
}

// badInput is a kind of bad dataset.
type badInput struct {
	name string
	make func(t *testing.T) string // returns the path to give lmdbio
	mpi  bool                      // also try it under mpirun -np 4
}

func badInputs(t *testing.T) []badInput {
	scattered, _ := scatteredDB(t)
	img, err := os.ReadFile(filepath.Join(scattered, "data.mdb"))
	if err != nil {
		t.Fatal(err)
	}
	tree := dbPages(t, img)
	if len(tree) < 3 {
		t.Fatalf("tree path %v: want depth >= 3", tree)
	}
	root, mid, leaf := tree[0], tree[1], tree[len(tree)-1]

	// corrupt returns a dataset directory holding the fixture changed by fn.
	corrupt := func(t *testing.T, fn func(b []byte) []byte) string {
		dir := filepath.Join(t.TempDir(), "bad")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b := fn(append([]byte(nil), img...))
		if err := os.WriteFile(filepath.Join(dir, "data.mdb"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	flip := func(off int, mask byte) func([]byte) []byte {
		return func(b []byte) []byte { b[off] ^= mask; return b }
	}
	return []badInput{
		{"missing path", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nothing-here") }, true},
		{"dir without data.mdb", func(t *testing.T) string { return t.TempDir() }, false},
		{"empty file", func(t *testing.T) string { return writeFile(t, "empty.mdb", nil) }, false},
		{"empty data.mdb", func(t *testing.T) string { return corrupt(t, func([]byte) []byte { return nil }) }, false},
		{"not LMDB", func(t *testing.T) string {
			return writeFile(t, "text.mdb", []byte(strings.Repeat("this is not a database\n", 2000)))
		}, true},
		{"not LMDB, short", func(t *testing.T) string { return writeFile(t, "short.mdb", []byte("hello")) }, false},
		{"truncated to 3/4", func(t *testing.T) string { return corrupt(t, func(b []byte) []byte { return b[:len(b)*3/4] }) }, true},
		{"truncated to 1/3", func(t *testing.T) string { return corrupt(t, func(b []byte) []byte { return b[:len(b)/3] }) }, false},
		{"truncated mid-page", func(t *testing.T) string { return corrupt(t, func(b []byte) []byte { return b[:len(b)-100] }) }, false},
		{"root header page number", func(t *testing.T) string { return corrupt(t, flip(root*pageSize+1, 0x10)) }, false},
		{"root header flags", func(t *testing.T) string { return corrupt(t, flip(root*pageSize+hdrFlags, 0x04)) }, true},
		{"branch header lower", func(t *testing.T) string { return corrupt(t, flip(mid*pageSize+hdrLower+1, 0x40)) }, false},
		{"branch node child page", func(t *testing.T) string { return corrupt(t, flip(firstNode(img, mid)+5, 0x20)) }, true},
		{"leaf header flags", func(t *testing.T) string { return corrupt(t, flip(leaf*pageSize+hdrFlags, 0x03)) }, false},
		{"leaf node key size", func(t *testing.T) string { return corrupt(t, flip(firstNode(img, leaf)+nodeKsize+1, 0x80)) }, false},
		{"leaf node pointer", func(t *testing.T) string { return corrupt(t, flip(leaf*pageSize+hdrPtrs+1, 0x7f)) }, false},
		{"truncated, one transaction", func(t *testing.T) string {
			// A database written in one transaction: meta page 0 still
			// describes the empty database liblmdb started with.
			dir, _ := genDB(t, "--records", "200", "--size", "2KiB,1KiB")
			data := filepath.Join(dir, "data.mdb")
			st, err := os.Stat(data)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(data, st.Size()/2); err != nil {
				t.Fatal(err)
			}
			return dir
		}, true},
		// liblmdb refuses a file when either meta page is damaged; lmdbio
		// must not read the other page's, maybe older, snapshot instead.
		{"meta page 0 magic", func(t *testing.T) string { return corrupt(t, flip(metaMagic, 0xff)) }, false},
		{"meta page 1 magic", func(t *testing.T) string { return corrupt(t, flip(pageSize+metaMagic, 0xff)) }, false},
		{"meta page 1 flags", func(t *testing.T) string { return corrupt(t, flip(pageSize+hdrFlags, 0x08)) }, false},
		{"named sub-database", func(t *testing.T) string { return unsupportedDB(t, lmdbtest.Spec{Named: true}) }, true},
		{"dupsort sub-database", func(t *testing.T) string { return unsupportedDB(t, lmdbtest.Spec{Named: true, DupSort: true}) }, false},
	}
}

// writeFile writes a file of the test and returns its path.
func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// unsupportedDB writes, with liblmdb, a database that uses a feature lmdbio
// does not read.
func unsupportedDB(t *testing.T, spec lmdbtest.Spec) string {
	dir := filepath.Join(t.TempDir(), "unsupported")
	for i := range 3 {
		spec.Txns = append(spec.Txns, lmdbtest.Txn{Puts: []lmdbtest.KV{
			{Key: []byte("k" + string(rune('a'+i))), Value: []byte("v1")},
			{Key: []byte("k" + string(rune('a'+i))), Value: []byte("v2")},
		}})
	}
	lmdbtest.Write(t, dir, spec)
	return dir
}

// TestE2EShmFull: a /dev/shm too small for the arena the options ask for
// is bad input (status 2), like a batch too large for the machine: the
// line says what is needed and which options shrink it. (It needs root, to
// mount a small /dev/shm in a mount namespace of its own.)
func TestE2EShmFull(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and unshare")
	}
	dir, _ := genDB(t, "--records", "300", "--size", "2KiB,1KiB")
	script := `mount -t tmpfs -o size=1m lmdbio-e2e /dev/shm && exec "$@"`
	r := execute(t, time60s, baseEnv(), unshare, "--mount", "--propagation", "private", "sh", "-c", script, "sh",
		lmdbioBin, "digest", dir)
	if strings.Contains(r.stderr, "mount") && r.code != 2 {
		t.Skipf("cannot mount a tmpfs here:\n%s", r)
	}
	checkOneLineError(t, r, 2, "lmdbio: "+dir+": ")
	if !strings.Contains(r.stderr, "shared memory") || !strings.Contains(r.stderr, "--window") {
		t.Errorf("the line does not say what is short and what to do:\n%s", r)
	}
	checkNoRepeats(t, r.stderr)
}

// TestE2EDigestDamagedMeta: a database whose meta page 0 or 1 has lost its
// magic is refused by lmdbio digest in its default (index) mode, as liblmdb
// refuses it: status 2 and one line that names the page, says liblmdb
// agrees and what to do. Reading the other page's snapshot would digest an
// older transaction's records.
func TestE2EDigestDamagedMeta(t *testing.T) {
	scattered, _ := scatteredDB(t)
	img, err := os.ReadFile(filepath.Join(scattered, "data.mdb"))
	if err != nil {
		t.Fatal(err)
	}
	for page := range 2 {
		dir := filepath.Join(t.TempDir(), "db")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b := append([]byte(nil), img...)
		b[page*pageSize+metaMagic] ^= 0xff
		if err := os.WriteFile(filepath.Join(dir, "data.mdb"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		r := lmdbio(t, nil, "digest", dir)
		checkOneLineError(t, r, 2, "lmdbio: "+dir+": ")
		want := []string{fmt.Sprintf("meta page %d is damaged (bad magic ", page), "liblmdb refuses", "restore the file from a copy or rebuild it"}
		for _, w := range want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("page %d: the line does not say %q:\n%s", page, w, r)
			}
		}
		if r.stdout != "" {
			t.Errorf("page %d: printed a digest:\n%s", page, r)
		}
	}
}
