package lmdbfmt

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
)

// fixture is an LMDB database written by liblmdb, with liblmdb's view of it.
type fixture struct {
	path   string // data file
	oracle []lmdbtest.Entry
	img    []byte // the data file's bytes
}

var (
	fixtureDir  string
	fixtureMu   sync.Mutex
	fixtureMemo = map[string]*fixture{}
)

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "lmdbfmt-test-")
	if err != nil {
		panic(err)
	}
	fixtureDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// fixtureSpecs are the databases the tests share; each is written once.
var fixtureSpecs = map[string]lmdbtest.Spec{
	// A handful of records in one leaf page, plus one overflow value.
	"tiny": {Txns: []lmdbtest.Txn{{Puts: []lmdbtest.KV{
		{Key: []byte("a"), Value: []byte("alpha")},
		{Key: []byte("b"), Value: []byte{}},
		{Key: []byte("c"), Value: bytes.Repeat([]byte{7}, 5000)},
		{Key: []byte("d\x00e"), Value: []byte("delta")},
	}}}},
	// Small and large values inserted in random order over many transactions
	// with deletes and rewrites.
	"mixed": lmdbtest.Generate(lmdbtest.Gen{Seed: 1, Records: 3000, KeyLen: 24, SmallMax: 300,
		BigEvery: 40, BigMin: 10 << 10, BigMax: 200 << 10, Txns: 25, Churn: 40}),
	// Enough longish keys for a tree of depth >= 3.
	"deep":  lmdbtest.Generate(lmdbtest.Gen{Seed: 2, Records: 20000, KeyLen: 64, SmallMax: 40, Txns: 10, Churn: 200}),
	"empty": {Txns: []lmdbtest.Txn{{}}},
	// Records put, then all deleted: the root goes back to P_INVALID.
	"emptied": {Txns: []lmdbtest.Txn{
		{Puts: []lmdbtest.KV{{Key: []byte("x"), Value: []byte("1")}, {Key: []byte("y"), Value: make([]byte, 9000)}}},
		{Dels: [][]byte{[]byte("x"), []byte("y")}},
	}},
	"single-file": lmdbtest.Generate(lmdbtest.Gen{Seed: 3, Records: 500, KeyLen: 8, SmallMax: 100,
		BigEvery: 50, BigMin: 3000, BigMax: 20000, Txns: 3, Churn: 10}),
	"named": {Named: true, Txns: []lmdbtest.Txn{{Puts: []lmdbtest.KV{{Key: []byte("k"), Value: []byte("v")}}}}},
	"named-dupsort": {DupSort: true, Txns: []lmdbtest.Txn{{Puts: []lmdbtest.KV{
		{Key: []byte("k"), Value: []byte("v1")}, {Key: []byte("k"), Value: []byte("v2")}}}}},
}

func init() {
	s := fixtureSpecs["single-file"]
	s.NoSubdir = true
	fixtureSpecs["single-file"] = s
}

// getFixture writes (once) and returns the named fixture.
func getFixture(t testing.TB, name string) *fixture {
	t.Helper()
	lmdbtest.Require(t)
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if f := fixtureMemo[name]; f != nil {
		return f
	}
	spec, ok := fixtureSpecs[name]
	if !ok {
		t.Fatalf("no fixture %q", name)
	}
	p, oracle := lmdbtest.Write(t, filepath.Join(fixtureDir, name), spec)
	img, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{path: p, oracle: oracle, img: img}
	fixtureMemo[name] = f
	return f
}

// walkImage opens an in-memory image and walks it, copying keys.
func walkImage(img []byte, opt Options) (*File, []Record, Stats, error) {
	f, err := OpenOptions(bytes.NewReader(img), int64(len(img)), opt)
	if err != nil {
		return nil, nil, Stats{}, err
	}
	var recs []Record
	st, err := f.WalkStats(func(r Record) error {
		r.Key = bytes.Clone(r.Key)
		recs = append(recs, r)
		return nil
	})
	return f, recs, st, err
}

// treePages lists the branch and leaf pages of an image's tree.
func treePages(t testing.TB, img []byte) (branches, leaves []uint64) {
	t.Helper()
	f, err := Open(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	w := newWalker(f, func(Record) error { return nil })
	w.onPage = func(pgno uint64, leaf bool, level int) {
		if leaf {
			leaves = append(leaves, pgno)
		} else {
			branches = append(branches, pgno)
		}
	}
	if err := w.run(); err != nil {
		t.Fatal(err)
	}
	return branches, leaves
}
