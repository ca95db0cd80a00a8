package lmdbfmt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
)

// Offsets of meta fields within a meta page (page header + MDB_meta).
const (
	offMainFlags   = pageHeaderSize + 24 + dbSize + 4
	offMainDepth   = pageHeaderSize + 24 + dbSize + 6
	offMainEntries = pageHeaderSize + 24 + dbSize + 32
	offMainRoot    = pageHeaderSize + 24 + dbSize + 40
	offTxnID       = pageHeaderSize + 24 + 2*dbSize + 8
)

var le = binary.LittleEndian

// bothMetas applies edit to the meta of pages 0 and 1.
func bothMetas(img []byte, edit func(meta []byte)) {
	ps := int(le.Uint32(img[pageHeaderSize+24:]))
	edit(img[0:ps])
	edit(img[ps : 2*ps])
}

func TestOpenErrors(t *testing.T) {
	mixed := getFixture(t, "mixed").img
	ps := 4096
	tests := []struct {
		name string
		img  func() []byte
		want error
	}{
		{"empty file", func() []byte { return nil }, ErrNotLMDB},
		{"text file", func() []byte { return bytes.Repeat([]byte("hello, world\n"), 1000) }, ErrNotLMDB},
		{"tiny file", func() []byte { return []byte{0xde, 0xc0} }, ErrNotLMDB},
		{"truncated to one page", func() []byte { return bytes.Clone(mixed[:ps]) }, ErrCorrupt},
		{"truncated to half", func() []byte { return bytes.Clone(mixed[:len(mixed)/2]) }, ErrCorrupt},
		{"truncated meta", func() []byte { return bytes.Clone(mixed[:pageHeaderSize+metaSize-1]) }, ErrNotLMDB},
		{"32-bit file", func() []byte {
			b := make([]byte, 2*ps)
			le.PutUint32(b[pageHeaderSize32:], metaMagic)
			le.PutUint32(b[ps+pageHeaderSize32:], metaMagic)
			return b
		}, ErrUnsupported},
		{"other version", func() []byte {
			b := bytes.Clone(mixed)
			bothMetas(b, func(m []byte) { le.PutUint32(m[pageHeaderSize+4:], 999) })
			return b
		}, ErrUnsupported},
		{"dupsort flag", func() []byte {
			b := bytes.Clone(mixed)
			bothMetas(b, func(m []byte) { le.PutUint16(m[offMainFlags:], dbDupSort) })
			return b
		}, ErrUnsupported},
		{"unknown db flags", func() []byte {
			b := bytes.Clone(mixed)
			bothMetas(b, func(m []byte) { le.PutUint16(m[offMainFlags:], 0x100) })
			return b
		}, ErrCorrupt},
		{"bad page size", func() []byte {
			b := bytes.Clone(mixed)
			bothMetas(b, func(m []byte) { le.PutUint32(m[pageHeaderSize+24:], 3000) })
			return b
		}, ErrCorrupt},
		{"root on meta page", func() []byte {
			b := bytes.Clone(mixed)
			bothMetas(b, func(m []byte) { le.PutUint64(m[offMainRoot:], 1) })
			return b
		}, ErrCorrupt},
		{"depth too large", func() []byte {
			b := bytes.Clone(mixed)
			bothMetas(b, func(m []byte) { le.PutUint16(m[offMainDepth:], 40) })
			return b
		}, ErrCorrupt},
		{"not meta pages", func() []byte {
			b := bytes.Clone(mixed)
			bothMetas(b, func(m []byte) { le.PutUint16(m[10:], pLeaf) })
			return b
		}, ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			img := tc.img()
			_, err := Open(bytes.NewReader(img), int64(len(img)))
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open = %v, want %v", err, tc.want)
			}
			t.Log(err)
		})
	}
}

// metaDamages are ways a meta page (header plus MDB_meta) can be damaged.
var metaDamages = []struct {
	name    string
	edit    func(m []byte)
	want    error
	text    string // what the error says is wrong
	liblmdb string // liblmdb's error when either page has it; "" where not checked
	only1   bool   // page 1 only: the damage is relative to page 0
}{
	{"no meta flag", func(m []byte) { le.PutUint16(m[10:], pLeaf) }, ErrCorrupt, "page flags 0x2 lack the meta flag", "MDB_INVALID", false},
	{"bad magic", func(m []byte) { m[pageHeaderSize] ^= 0xff }, ErrCorrupt, "bad magic 0xbeefc021", "MDB_INVALID", false},
	{"no meta flag, other version", func(m []byte) { le.PutUint16(m[10:], pLeaf); le.PutUint32(m[pageHeaderSize+4:], 999) },
		ErrCorrupt, "lack the meta flag", "MDB_INVALID", false},
	{"other version", func(m []byte) { le.PutUint32(m[pageHeaderSize+4:], 999) }, ErrUnsupported, "format version 999 (want 1)", "MDB_VERSION_MISMATCH", false},
	{"older version", func(m []byte) { le.PutUint32(m[pageHeaderSize+4:], 0) }, ErrUnsupported, "format version 0 (want 1)", "MDB_VERSION_MISMATCH", false},
	{"header page number", func(m []byte) { le.PutUint64(m[0:], 7) }, ErrCorrupt, "header says page 7", "", false},
	{"bad page size", func(m []byte) { le.PutUint32(m[pageHeaderSize+24:], 3000) }, ErrCorrupt, "bad page size 3000", "", false},
	{"other page size", func(m []byte) { le.PutUint32(m[pageHeaderSize+24:], 8192) }, ErrCorrupt, "page size 8192 differs from page 0's 4096", "", true},
	{"last page zero", func(m []byte) { le.PutUint64(m[offTxnID-8:], 0) }, ErrCorrupt, "last page 0", "", false},
	{"root past last page", func(m []byte) { le.PutUint64(m[offMainRoot:], le.Uint64(m[offTxnID-8:])+1) }, ErrCorrupt, "main root page", "", false},
	{"root on meta page", func(m []byte) { le.PutUint64(m[offMainRoot:], 1) }, ErrCorrupt, "main root page 1 outside", "", false},
	{"depth zero", func(m []byte) { le.PutUint16(m[offMainDepth:], 0) }, ErrCorrupt, "main tree depth 0", "", false},
	{"depth too large", func(m []byte) { le.PutUint16(m[offMainDepth:], 40) }, ErrCorrupt, "main tree depth 40", "", false},
	{"empty with entries", func(m []byte) { le.PutUint64(m[offMainRoot:], NoRoot) }, ErrCorrupt, "empty main database", "", false},
	{"unknown db flags", func(m []byte) { le.PutUint16(m[offMainFlags:], 0x100) }, ErrCorrupt, "unknown main database flags 0x100", "", false},
}

// TestDamagedMeta damages meta page 0, page 1 or both: the file is refused
// with a line that names the page, says what is wrong and what to do, and
// never read through the other page's snapshot. Where liblmdb looks at the
// damage, it refuses the file too.
func TestDamagedMeta(t *testing.T) {
	fx := getFixture(t, "mixed")
	ps := 4096
	for _, d := range metaDamages {
		for _, pages := range [][]int{{0}, {1}, {0, 1}} {
			if d.only1 && pages[0] == 0 {
				continue
			}
			t.Run(fmt.Sprintf("%s/pages %v", d.name, pages), func(t *testing.T) {
				img := bytes.Clone(fx.img)
				for _, p := range pages {
					d.edit(img[p*ps : (p+1)*ps])
				}
				_, err := Open(bytes.NewReader(img), int64(len(img)))
				checkMetaError(t, err, d.want, pages, d.text, d.liblmdb != "")
				if d.liblmdb != "" && len(pages) == 1 {
					if got := liblmdbOpen(t, img); !strings.Contains(got, d.liblmdb) {
						t.Errorf("liblmdb says %q, want %s", got, d.liblmdb)
					}
				}
			})
		}
	}
}

// checkMetaError checks the error of a file whose meta pages were damaged.
func checkMetaError(t *testing.T, err error, want error, pages []int, text string, liblmdb bool) {
	t.Helper()
	msg := fmt.Sprint(err)
	t.Log(msg)
	if len(pages) == 2 && strings.HasPrefix(text, "bad magic") {
		want = ErrNotLMDB // no page shows the file is LMDB
	}
	if !errors.Is(err, want) || !strings.Contains(msg, text) || strings.Contains(msg, "\n") {
		t.Fatalf("Open = %q, want one line saying %q that wraps %v", msg, text, want)
	}
	if want != ErrCorrupt {
		return
	}
	for _, part := range []string{fmt.Sprintf("meta page %d is damaged", pages[0]), "restore the file from a copy or rebuild it"} {
		if !strings.Contains(msg, part) {
			t.Errorf("Open = %q, want it to say %q", msg, part)
		}
	}
	if strings.Contains(msg, "liblmdb refuses") != liblmdb {
		t.Errorf("Open = %q: says liblmdb refuses it: %v, want %v", msg, !liblmdb, liblmdb)
	}
}

// liblmdbOpen opens the database img in a directory of its own with
// liblmdb, read-only and without a lock file, and returns liblmdb's error,
// "" if it opened.
func liblmdbOpen(t *testing.T, img []byte) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.mdb"), img, 0o644); err != nil {
		t.Fatal(err)
	}
	const script = "import sys, lmdb\ntry:\n    lmdb.open(sys.argv[1], readonly=True, lock=False).close()\nexcept lmdb.Error as e:\n    print(e)"
	out, err := exec.Command(lmdbtest.Python, "-c", script, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("liblmdb: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestDamagedMetaPage0Probe: with page 0's magic damaged, page 1 at any
// page size shows the file is LMDB, so the file is damaged, not foreign.
func TestDamagedMetaPage0Probe(t *testing.T) {
	img := handMadeImage() // 512-byte pages
	img[pageHeaderSize] ^= 0xff
	_, err := Open(bytes.NewReader(img), int64(len(img)))
	checkMetaError(t, err, ErrCorrupt, []int{0}, "bad magic", true)
	binary.LittleEndian.PutUint32(img[512+pageHeaderSize:], 0)
	if _, err := Open(bytes.NewReader(img), int64(len(img))); !errors.Is(err, ErrNotLMDB) {
		t.Errorf("no magic on either page: %v, want ErrNotLMDB", err)
	}
}

// tornReader reads as img, except that the first tears reads of the meta
// page at offset at see it as in torn, half rewritten, as a read racing a
// writer's commit may.
type tornReader struct {
	img, torn []byte
	at        int64
	tears     int
}

func (r *tornReader) ReadAt(p []byte, off int64) (int, error) {
	if off == r.at && r.tears > 0 {
		r.tears--
		return copy(p, r.torn[off:]), nil
	}
	return bytes.NewReader(r.img).ReadAt(p, off)
}

// TestMetaTornRead: a meta page caught half written by a committing writer
// is read again, and only damage that stays is reported.
func TestMetaTornRead(t *testing.T) {
	img := handMadeImage() // three 512-byte pages; page 1 is the newer
	torn := bytes.Clone(img)
	le.PutUint64(torn[512+offMainRoot:], 9) // the new root, with the old last page
	for tears := range metaReads + 1 {
		f, err := Open(&tornReader{img: img, torn: torn, at: 512, tears: tears}, int64(len(img)))
		switch {
		case tears < metaReads && (err != nil || f.Meta().MetaPage != 1):
			t.Errorf("%d torn reads: %v, want page 1's snapshot", tears, err)
		case tears == metaReads && !errors.Is(err, ErrCorrupt):
			t.Errorf("%d torn reads: %v, want ErrCorrupt", tears, err)
		}
	}
}

// TestTruncatedNoFallback cuts the end off a database written over many
// transactions: the older snapshot must not be read in its place.
func TestTruncatedNoFallback(t *testing.T) {
	fx := getFixture(t, "mixed")
	for _, cut := range []int{100, 4096, len(fx.img) / 2} {
		img := fx.img[:len(fx.img)-cut]
		_, _, _, err := walkImage(img, Options{})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("cut %d bytes: err = %v, want a truncated ErrCorrupt", cut, err)
		}
	}
}

// TestOverflowReuse: liblmdb may keep a bigger overflow run when a value is
// rewritten smaller in the same transaction; the meta then counts more
// overflow pages than the values need, which is not corruption.
func TestOverflowReuse(t *testing.T) {
	lmdbtest.Require(t)
	path := t.TempDir()
	spec := lmdbtest.Spec{Txns: []lmdbtest.Txn{{Puts: []lmdbtest.KV{
		{Key: []byte("k"), Value: bytes.Repeat([]byte{'x'}, 10000)},
		{Key: []byte("k"), Value: bytes.Repeat([]byte{'y'}, 5000)},
	}}}}
	dataPath, _ := lmdbtest.Write(t, path, spec)
	img, err := os.ReadFile(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	_, recs, _, err := walkImage(img, Options{VerifyOverflow: true})
	if err != nil || len(recs) != 1 || recs[0].Length != 5000 {
		t.Fatalf("walk = %d records, %v; want the one 5000-byte value", len(recs), err)
	}
}

// TestUnsupportedDatabases uses databases liblmdb wrote with features this
// package does not read.
func TestUnsupportedDatabases(t *testing.T) {
	for _, name := range []string{"named", "named-dupsort"} {
		fx := getFixture(t, name)
		_, _, _, err := walkImage(fx.img, Options{})
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", name, err)
		}
	}
	// A main database with MDB_DUPSORT, written by liblmdb's mdb_load.
	mdbLoad, err := exec.LookPath("mdb_load")
	if err != nil {
		t.Skip("mdb_load not installed")
	}
	dir := filepath.Join(t.TempDir(), "dup")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(mdbLoad, dir)
	cmd.Stdin = bytes.NewReader([]byte("VERSION=3\nformat=bytevalue\ntype=btree\ndupsort=1\nHEADER=END\n 61\n 31\n 61\n 32\nDATA=END\n"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mdb_load: %v: %s", err, out)
	}
	img, err := os.ReadFile(filepath.Join(dir, "data.mdb"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := walkImage(img, Options{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("main DUPSORT: %v, want ErrUnsupported", err)
	}
}

// TestCorruptTree damages branch and leaf pages in specific ways; each must
// be reported as corruption (or, for a sub-database flag, unsupported).
func TestCorruptTree(t *testing.T) {
	fx := getFixture(t, "mixed")
	branches, leaves := treePages(t, fx.img)
	if len(branches) < 2 || len(leaves) < 2 {
		t.Fatalf("fixture too small: %d branch, %d leaf pages", len(branches), len(leaves))
	}
	f, _ := Open(bytes.NewReader(fx.img), int64(len(fx.img)))
	m := f.Meta()
	ps := m.PageSize
	page := func(b []byte, pgno uint64) []byte { return b[int(pgno)*ps : int(pgno+1)*ps] }
	node0 := func(p []byte, i int) []byte { return p[nodePtr(p, i):] }
	// A leaf node with an overflow value, and one with an inline value.
	var bigLeaf, smallLeaf uint64
	var bigNode, smallNode int
	for _, l := range leaves {
		p := page(fx.img, l)
		n := (int(le.Uint16(p[12:])) - pageHeaderSize) / 2
		for i := range n {
			if decodeNode(node0(p, i)).flags&fBigData != 0 {
				bigLeaf, bigNode = l, i
			} else {
				smallLeaf, smallNode = l, i
			}
		}
	}
	root, branch, leaf := m.Root, branches[len(branches)-1], leaves[len(leaves)/2]
	tests := []struct {
		name string
		edit func(b []byte)
		want error
	}{
		{"branch header pgno", func(b []byte) { le.PutUint64(page(b, branch), branch+1) }, ErrCorrupt},
		{"branch flags overflow", func(b []byte) { le.PutUint16(page(b, branch)[10:], pOverflow) }, ErrCorrupt},
		{"branch flags leaf", func(b []byte) { le.PutUint16(page(b, branch)[10:], pLeaf) }, ErrCorrupt},
		{"branch lower below header", func(b []byte) { le.PutUint16(page(b, branch)[12:], 10) }, ErrCorrupt},
		{"branch lower odd", func(b []byte) { le.PutUint16(page(b, branch)[12:], 17) }, ErrCorrupt},
		{"branch no nodes", func(b []byte) { le.PutUint16(page(b, branch)[12:], pageHeaderSize) }, ErrCorrupt},
		{"branch upper below lower", func(b []byte) { le.PutUint16(page(b, branch)[14:], 18) }, ErrCorrupt},
		{"branch node ptr into header", func(b []byte) { le.PutUint16(page(b, branch)[pageHeaderSize:], 4) }, ErrCorrupt},
		{"branch node ptr past end", func(b []byte) { le.PutUint16(page(b, branch)[pageHeaderSize:], uint16(ps-4)) }, ErrCorrupt},
		{"branch child beyond last page", func(b []byte) {
			n := node0(page(b, branch), 0)
			le.PutUint16(n[0:], 0xffff)
			le.PutUint16(n[2:], 0xffff)
		}, ErrCorrupt},
		{"branch child is meta page", func(b []byte) { n := node0(page(b, branch), 0); le.PutUint32(n[0:], 1); le.PutUint16(n[4:], 0) }, ErrCorrupt},
		{"branch child cycle to root", func(b []byte) {
			n := node0(page(b, branch), 1)
			le.PutUint32(n[0:], uint32(root))
			le.PutUint16(n[4:], 0)
		}, ErrCorrupt},
		{"branch children share a page", func(b []byte) {
			p := page(b, branch)
			le.PutUint16(p[pageHeaderSize+2:], le.Uint16(p[pageHeaderSize:]))
		}, ErrCorrupt},
		{"leaf header pgno", func(b []byte) { le.PutUint64(page(b, leaf), 12345) }, ErrCorrupt},
		{"leaf flags branch", func(b []byte) { le.PutUint16(page(b, leaf)[10:], pBranch) }, ErrCorrupt},
		{"leaf flags leaf2", func(b []byte) { le.PutUint16(page(b, leaf)[10:], pLeaf|pLeaf2) }, ErrCorrupt},
		{"leaf key size huge", func(b []byte) { le.PutUint16(node0(page(b, leaf), 0)[6:], 0xffff) }, ErrCorrupt},
		{"leaf inline value past page", func(b []byte) {
			n := node0(page(b, smallLeaf), smallNode)
			le.PutUint16(n[2:], 0x10)
		}, ErrCorrupt},
		{"leaf node unknown flag", func(b []byte) { le.PutUint16(node0(page(b, leaf), 0)[4:], 0x10) }, ErrCorrupt},
		{"leaf node sub-database flag", func(b []byte) { le.PutUint16(node0(page(b, leaf), 0)[4:], fSubData) }, ErrUnsupported},
		{"leaf nodes out of order", func(b []byte) {
			p := page(b, leaf)
			a, c := le.Uint16(p[pageHeaderSize:]), le.Uint16(p[pageHeaderSize+2:])
			le.PutUint16(p[pageHeaderSize:], c)
			le.PutUint16(p[pageHeaderSize+2:], a)
		}, ErrCorrupt},
		{"overflow page beyond last", func(b []byte) {
			n := node0(page(b, bigLeaf), bigNode)
			le.PutUint64(n[nodeHeaderSize+int(le.Uint16(n[6:])):], m.LastPgno)
		}, ErrCorrupt},
		{"overflow page is a leaf", func(b []byte) {
			n := node0(page(b, bigLeaf), bigNode)
			le.PutUint64(n[nodeHeaderSize+int(le.Uint16(n[6:])):], leaf)
		}, ErrCorrupt},
		{"overflow size beyond file", func(b []byte) {
			n := node0(page(b, bigLeaf), bigNode)
			le.PutUint16(n[2:], 0xffff)
		}, ErrCorrupt},
		{"meta entries", func(b []byte) { bothMetas(b, func(p []byte) { le.PutUint64(p[offMainEntries:], m.Entries+1) }) }, ErrCorrupt},
		{"meta depth deeper", func(b []byte) { bothMetas(b, func(p []byte) { le.PutUint16(p[offMainDepth:], uint16(m.Depth+1)) }) }, ErrCorrupt},
		{"meta depth shallower", func(b []byte) { bothMetas(b, func(p []byte) { le.PutUint16(p[offMainDepth:], uint16(m.Depth-1)) }) }, ErrCorrupt},
		{"meta root is a leaf", func(b []byte) { bothMetas(b, func(p []byte) { le.PutUint64(p[offMainRoot:], leaf) }) }, ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			img := bytes.Clone(fx.img)
			tc.edit(img)
			_, _, _, err := walkImage(img, Options{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			t.Log(err)
		})
	}
	// Overflow header damage is only seen with VerifyOverflow.
	t.Run("overflow header with VerifyOverflow", func(t *testing.T) {
		img := bytes.Clone(fx.img)
		n := node0(page(img, bigLeaf), bigNode)
		ov := le.Uint64(n[nodeHeaderSize+int(le.Uint16(n[6:])):])
		le.PutUint16(page(img, ov)[10:], pLeaf)
		if _, _, _, err := walkImage(img, Options{}); err != nil {
			t.Fatalf("without verification: %v", err)
		}
		if _, _, _, err := walkImage(img, Options{VerifyOverflow: true}); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("with verification: %v, want ErrCorrupt", err)
		}
	})
}

// TestRandomDamage flips random bits in tree pages and truncates at random
// sizes: never a panic, and every record reported lies inside the file.
func TestRandomDamage(t *testing.T) {
	for _, name := range []string{"tiny", "mixed", "single-file"} {
		fx := getFixture(t, name)
		branches, leaves := treePages(t, fx.img)
		pages := append(append([]uint64{0, 1}, branches...), leaves...)
		rng := rand.New(rand.NewPCG(7, 7))
		ps := 4096
		img := bytes.Clone(fx.img)
		for trial := range 300 {
			if trial%10 == 9 {
				checkNoEscape(t, img[:rng.IntN(len(img))])
				continue
			}
			// Flip bits, check, and flip them back (cheaper than a copy).
			var flips []int
			for range 1 + rng.IntN(4) {
				p := pages[rng.IntN(len(pages))]
				// Headers and node pointers are the interesting part.
				off := int(p)*ps + rng.IntN(64)
				if rng.IntN(2) == 0 {
					off = int(p)*ps + rng.IntN(ps)
				}
				bit := 1 << rng.IntN(8)
				img[off] ^= byte(bit)
				flips = append(flips, off, bit)
			}
			checkNoEscape(t, img)
			for i := len(flips) - 2; i >= 0; i -= 2 {
				img[flips[i]] ^= byte(flips[i+1])
			}
		}
		if !bytes.Equal(img, fx.img) {
			t.Fatal("bit flips not undone")
		}
	}
}

// checkNoEscape opens and walks img; any error must be one of the sentinels,
// and every record must lie inside the image.
func checkNoEscape(t testing.TB, img []byte) {
	_, recs, _, err := walkImage(img, Options{VerifyOverflow: len(img)%2 == 0})
	if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotLMDB) && !errors.Is(err, ErrUnsupported) {
		t.Fatalf("error wraps no sentinel: %v", err)
	}
	for i, r := range recs {
		if r.Offset < 0 || r.Length < 0 || r.Offset+r.Length > int64(len(img)) {
			t.Fatalf("record %d extent %d+%d outside image of %d bytes", i, r.Offset, r.Length, len(img))
		}
	}
}
