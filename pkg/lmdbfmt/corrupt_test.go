package lmdbfmt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/lmdbfmt/lmdbtest"
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

// TestMetaFallback damages the newest meta page: the other one is used.
func TestMetaFallback(t *testing.T) {
	for _, name := range []string{"mixed", "deep"} {
		fx := getFixture(t, name)
		f, err := Open(bytes.NewReader(fx.img), int64(len(fx.img)))
		if err != nil {
			t.Fatal(err)
		}
		newest := f.Meta()
		img := bytes.Clone(fx.img)
		off := newest.MetaPage * newest.PageSize
		img[off+pageHeaderSize] ^= 0xff // magic
		g, recs, _, err := walkImage(img, Options{VerifyOverflow: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g.Meta().MetaPage == newest.MetaPage || g.Meta().TxnID >= newest.TxnID {
			t.Fatalf("%s: picked meta %+v after damaging %+v", name, g.Meta(), newest)
		}
		if uint64(len(recs)) != g.Meta().Entries {
			t.Fatalf("%s: %d records, meta says %d", name, len(recs), g.Meta().Entries)
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
