// Package lmdbtest writes LMDB databases for tests with liblmdb itself (via
// the Debian python3-lmdb module, which wraps liblmdb) and returns what
// liblmdb's own cursor reads back, as an oracle independent of this module.
//
// Tests that use it skip when /usr/bin/python3 or its lmdb module is missing.
package lmdbtest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Python is the interpreter whose lmdb module writes the fixtures.
const Python = "/usr/bin/python3"

// KV is one put.
type KV struct{ Key, Value []byte }

// Txn is one write transaction: puts, then deletes.
type Txn struct {
	Puts []KV
	Dels [][]byte
}

// Spec describes a database to write.
type Spec struct {
	Txns []Txn
	// NoSubdir writes a single file (MDB_NOSUBDIR) instead of a directory.
	NoSubdir bool
	// Named puts the records into a named sub-database "sub" (with DupSort,
	// a sorted-duplicates one) instead of the main database.
	Named, DupSort bool
	// MapSize is the map size; 0 means 256 MiB.
	MapSize int64

	readOnly bool // Read: write nothing, only list the records
}

// Read returns the main database's records at path as liblmdb's cursor reads
// them, opening the database read-only without a lock file.
func Read(tb testing.TB, path string, noSubdir bool) []Entry {
	tb.Helper()
	_, oracle := Write(tb, path, Spec{NoSubdir: noSubdir, readOnly: true})
	return oracle
}

// Entry is what liblmdb's cursor returned for one record of the main database.
type Entry struct {
	Key    []byte
	Len    int
	SHA256 [32]byte
}

var (
	checkOnce sync.Once
	checkErr  error
)

// Available reports whether python3 with the lmdb module can write fixtures.
func Available() bool {
	checkOnce.Do(func() {
		if _, err := os.Stat(Python); err != nil {
			checkErr = err
			return
		}
		if out, err := exec.Command(Python, "-c", "import lmdb").CombinedOutput(); err != nil {
			checkErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	return checkErr == nil
}

// Require skips the test unless python3 with the lmdb module is available.
func Require(tb testing.TB) {
	tb.Helper()
	if !Available() {
		tb.Skipf("python3-lmdb not available: %v", checkErr)
	}
}

// script applies the transactions framed on stdin, then prints the main
// database as liblmdb's cursor sees it: "hexkey length sha256hex" lines.
const script = `
import sys, struct, hashlib, lmdb
path, subdir, mapsize, mode = sys.argv[1], sys.argv[2] == '1', int(sys.argv[3]), sys.argv[4]
readonly = mode == 'read'
env = lmdb.open(path, subdir=subdir, map_size=mapsize, max_dbs=4, readonly=readonly, lock=not readonly)
db = None
if mode == 'named':
    db = env.open_db(b'sub')
elif mode == 'dupsort':
    db = env.open_db(b'sub', dupsort=True)
data = sys.stdin.buffer.read()
i = 0
txn = None if readonly else env.begin(write=True, db=db)
while i < len(data):
    op = data[i:i+1]; i += 1
    if op == b'T':
        txn.commit(); txn = env.begin(write=True, db=db); continue
    (kl,) = struct.unpack_from('<I', data, i); i += 4
    k = data[i:i+kl]; i += kl
    if op == b'P':
        (vl,) = struct.unpack_from('<I', data, i); i += 4
        txn.put(k, data[i:i+vl]); i += vl
    else:
        txn.delete(k)
if txn is not None:
    txn.commit()
out = sys.stdout
with env.begin() as t:
    for k, v in t.cursor():
        out.write('%s %d %s\n' % (bytes(k).hex(), len(v), hashlib.sha256(v).hexdigest()))
env.close()
`

// Write applies spec to the database at path (created if missing; a
// directory unless spec.NoSubdir) and returns the data file's path and the
// main database's records as liblmdb reads them.
func Write(tb testing.TB, path string, spec Spec) (dataPath string, oracle []Entry) {
	tb.Helper()
	Require(tb)
	var in bytes.Buffer
	var n [4]byte
	frame := func(b []byte) {
		binary.LittleEndian.PutUint32(n[:], uint32(len(b)))
		in.Write(n[:])
		in.Write(b)
	}
	for i, t := range spec.Txns {
		if i > 0 {
			in.WriteByte('T')
		}
		for _, kv := range t.Puts {
			in.WriteByte('P')
			frame(kv.Key)
			frame(kv.Value)
		}
		for _, k := range t.Dels {
			in.WriteByte('D')
			frame(k)
		}
	}
	mode := "main"
	switch {
	case spec.readOnly:
		mode = "read"
	case spec.DupSort:
		mode = "dupsort"
	case spec.Named:
		mode = "named"
	}
	mapSize := spec.MapSize
	if mapSize == 0 {
		mapSize = 256 << 20
	}
	subdir := "1"
	dataPath = filepath.Join(path, "data.mdb")
	if spec.NoSubdir {
		subdir, dataPath = "0", path
	}
	cmd := exec.Command(Python, "-c", script, path, subdir, strconv.FormatInt(mapSize, 10), mode)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("writing LMDB fixture %s: %v: %s", path, err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			tb.Fatalf("bad oracle line %q", sc.Text())
		}
		var e Entry
		var err1, err2, err3 error
		e.Key, err1 = hex.DecodeString(f[0])
		e.Len, err2 = strconv.Atoi(f[1])
		sum, err3 := hex.DecodeString(f[2])
		if err1 != nil || err2 != nil || err3 != nil || len(sum) != 32 {
			tb.Fatalf("bad oracle line %q", sc.Text())
		}
		copy(e.SHA256[:], sum)
		oracle = append(oracle, e)
	}
	return dataPath, oracle
}

// Gen describes a generated workload for Generate.
type Gen struct {
	Seed     uint64
	Records  int // distinct keys inserted
	KeyLen   int // key length; keys are random bytes
	SmallMax int // small values are 0..SmallMax bytes
	// Every BigEvery-th record (0: none) gets a value of BigMin..BigMax
	// bytes, which liblmdb stores in overflow pages.
	BigEvery, BigMin, BigMax int
	Txns                     int // records are spread over this many transactions (min 1)
	// Churn, per transaction after the first, deletes and rewrites this many
	// earlier records with new sizes, so freed pages get reused out of order.
	Churn int
	// Sorted inserts the keys in their order, as Caffe's convert_imageset
	// does: the leaf pages then lie in key order in the file.
	Sorted bool
}

// Generate builds a Spec: keys in random order over g.Txns transactions.
func Generate(g Gen) Spec {
	rng := rand.New(rand.NewPCG(g.Seed, g.Seed^0x9e3779b97f4a7c15))
	value := func(i int) []byte {
		n := rng.IntN(g.SmallMax + 1)
		if g.BigEvery > 0 && i%g.BigEvery == 0 {
			n = g.BigMin + rng.IntN(g.BigMax-g.BigMin+1)
		}
		v := make([]byte, n)
		for j := range v {
			v[j] = byte(rng.Uint32())
		}
		return v
	}
	seen := map[string]bool{}
	keys := make([][]byte, 0, g.Records)
	for len(keys) < g.Records {
		k := make([]byte, g.KeyLen)
		for j := range k {
			k[j] = byte(rng.Uint32())
		}
		if !seen[string(k)] {
			seen[string(k)] = true
			keys = append(keys, k)
		}
	}
	if g.Sorted {
		slices.SortFunc(keys, bytes.Compare)
	}
	txns := max(g.Txns, 1)
	spec := Spec{Txns: make([]Txn, txns)}
	for i, k := range keys {
		t := i * txns / len(keys)
		spec.Txns[t].Puts = append(spec.Txns[t].Puts, KV{k, value(i)})
	}
	for t := 1; t < txns && len(keys) > 0; t++ {
		done := t * len(keys) / txns // keys inserted by earlier transactions
		for range min(g.Churn, done) {
			i := rng.IntN(done)
			k := keys[i]
			if rng.IntN(2) == 0 {
				spec.Txns[t].Dels = append(spec.Txns[t].Dels, k)
			} else {
				spec.Txns[t].Puts = append(spec.Txns[t].Puts, KV{k, value(rng.IntN(1 + g.BigEvery))})
			}
		}
	}
	return spec
}

// Sum is the SHA-256 of b, for comparing with Entry.SHA256.
func Sum(b []byte) [32]byte { return sha256.Sum256(b) }

// Claims are what the meta pages of a file from Claim say.
type Claims struct {
	PageSize int    // bytes per page
	Entries  uint64 // records in the main database
	Depth    uint16 // tree height (1: the root is a leaf)
	Root     uint64 // root page
}

// Claim writes at path a data file of size bytes whose two meta pages
// (liblmdb 0.9, 64-bit) make the given claims, with the file's last page as
// the last page in use, and whose page 2 is a leaf holding one record. Only
// the first three pages hold data; the rest is a hole, so size may be far
// larger than the disk. It is how a test shows that header claims, not
// content, cannot make a reader allocate or read without bound.
func Claim(tb testing.TB, path string, size int64, c Claims) {
	tb.Helper()
	ps := c.PageSize
	img := make([]byte, 3*ps)
	le := binary.LittleEndian
	for p := range 2 {
		m := img[p*ps:]
		le.PutUint64(m[0:], uint64(p))      // page number
		le.PutUint16(m[10:], 0x08)          // P_META
		le.PutUint32(m[16:], 0xBEEFC0DE)    // magic
		le.PutUint32(m[20:], 1)             // data version
		le.PutUint64(m[32:], uint64(size))  // map size
		le.PutUint32(m[40:], uint32(ps))    // page size (free DB's pad)
		le.PutUint64(m[40+40:], ^uint64(0)) // free DB root: empty
		main := m[40+48:]
		le.PutUint16(main[6:], c.Depth)
		le.PutUint64(main[16:], 1) // leaf pages
		le.PutUint64(main[32:], c.Entries)
		le.PutUint64(main[40:], c.Root)
		le.PutUint64(m[40+96:], uint64(size)/uint64(ps)-1) // last page
		le.PutUint64(m[40+104:], uint64(p+1))              // txn id
	}
	leaf := img[2*ps:]
	le.PutUint64(leaf[0:], 2)
	le.PutUint16(leaf[10:], 0x02)          // P_LEAF
	le.PutUint16(leaf[12:], 16+2)          // lower: one node pointer
	le.PutUint16(leaf[14:], uint16(ps-16)) // upper
	le.PutUint16(leaf[16:], uint16(ps-16)) // the node
	node := leaf[ps-16:]
	le.PutUint16(node[0:], 5) // data size
	le.PutUint16(node[6:], 3) // key size
	copy(node[8:], "keyvalue")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(img); err != nil {
		tb.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		tb.Fatal(err)
	}
}
