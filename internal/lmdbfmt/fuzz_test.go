package lmdbfmt

import (
	"encoding/binary"
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
)

// FuzzOpenWalk feeds arbitrary files to Open and Walk: they must never panic,
// and either fail with a sentinel error or report records inside the file.
// The seeds are small databases written by liblmdb.
func FuzzOpenWalk(f *testing.F) {
	if lmdbtest.Available() {
		for _, name := range []string{"tiny", "empty", "emptied"} {
			f.Add(getFixture(f, name).img)
		}
	}
	f.Add(handMadeImage())
	f.Add([]byte{})
	f.Add([]byte("not an lmdb file"))

	f.Fuzz(func(t *testing.T, data []byte) {
		checkNoEscape(t, data)
	})
}

// handMadeImage is a minimal database: two meta pages and one leaf page
// with one node ("key" = "value"), in 512-byte pages, so the fuzzer works on
// few bytes.
func handMadeImage() []byte {
	const ps = 512
	img := make([]byte, 3*ps)
	for p := range 2 {
		m := img[p*ps:]
		binary.LittleEndian.PutUint64(m[0:], uint64(p))
		binary.LittleEndian.PutUint16(m[10:], pMeta)
		binary.LittleEndian.PutUint32(m[16:], metaMagic)
		binary.LittleEndian.PutUint32(m[20:], dataVersion)
		binary.LittleEndian.PutUint32(m[40:], ps)                // mm_psize
		binary.LittleEndian.PutUint16(m[offMainDepth:], 1)       // depth
		binary.LittleEndian.PutUint64(m[offMainDepth+10:], 1)    // leaf pages
		binary.LittleEndian.PutUint64(m[offMainEntries:], 1)     // entries
		binary.LittleEndian.PutUint64(m[offMainRoot:], 2)        // root
		binary.LittleEndian.PutUint64(m[offTxnID-8:], 2)         // last page
		binary.LittleEndian.PutUint64(m[offTxnID:], uint64(p+1)) // txnid
	}
	leaf := img[2*ps:]
	binary.LittleEndian.PutUint64(leaf[0:], 2)
	binary.LittleEndian.PutUint16(leaf[10:], pLeaf)
	binary.LittleEndian.PutUint16(leaf[12:], pageHeaderSize+2)
	binary.LittleEndian.PutUint16(leaf[14:], ps-16)
	binary.LittleEndian.PutUint16(leaf[16:], ps-16)
	node := leaf[ps-16:]
	binary.LittleEndian.PutUint16(node[0:], 5) // data size
	binary.LittleEndian.PutUint16(node[6:], 3) // key size
	copy(node[8:], "keyvalue")
	return img
}

// TestHandMadeImage checks the fuzz seed is a valid database, so the fuzzer
// starts from something Walk accepts.
func TestHandMadeImage(t *testing.T) {
	img := handMadeImage()
	f, recs, _, err := walkImage(img, Options{VerifyOverflow: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.Meta().TxnID != 2 || len(recs) != 1 || string(recs[0].Key) != "key" ||
		string(img[recs[0].Offset:recs[0].Offset+recs[0].Length]) != "value" {
		t.Fatalf("meta %+v records %+v", f.Meta(), recs)
	}
}
