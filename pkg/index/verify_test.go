package index

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
	"github.com/lmdbio/lmdbio/internal/source"
)

// builtMixed builds the index of the mixed database (inline and overflow
// values) and returns it with the data file's bytes.
func builtMixed(t testing.TB) (*Index, string, []byte) {
	t.Helper()
	lmdbtest.Require(t)
	_, dataPath, _ := writeDB(t, mixedSpec)
	x, err := Build(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	img, err := os.ReadFile(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	return x, dataPath, img
}

// blockOf reads block b of s from the file image as a node reader would.
func blockOf(s source.Source, img []byte, b int) []byte {
	p := s.Pieces(b, nil)[0]
	return img[p.Off:p.End()]
}

// shifted is x with every value offset moved by d bytes.
func shifted(x *Index, d int64) *Index {
	y := *x
	y.off = make([]int64, len(x.off))
	for i, o := range x.off {
		y.off[i] = o + d
	}
	return &y
}

func TestSourceBlocks(t *testing.T) {
	x, dataPath, img := builtMixed(t)
	s := x.Source(dataPath)
	v := s.(source.Verifier)
	overflow := 0
	for i := range s.Len() {
		b, at := s.BlockOf(i)
		ps := s.Pieces(b, nil)
		if b != i || len(ps) != 1 || ps[0].Len != s.DecodedLen(b) || at+s.ValueLen(i) != s.DecodedLen(b) {
			t.Fatalf("record %d: block %d at %d, pieces %v, decoded %d", i, b, at, ps, s.DecodedLen(b))
		}
		block := blockOf(s, img, b)
		off, n := x.Extent(i)
		if !bytes.Equal(block[at:], img[off:off+n]) {
			t.Fatalf("record %d: value in its block differs from the file's", i)
		}
		if err := v.Verify(b, block); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if err := s.(*lmdbSource).Heads().Check(img, i, off, n, x.Key(i)); err != nil {
			t.Fatalf("record %d: Heads: %v", i, err)
		}
		if at == lmdbPageHeader {
			overflow++
		}
	}
	if overflow == 0 || overflow == s.Len() {
		t.Fatalf("%d of %d records in overflow pages: the fixture should have both kinds", overflow, s.Len())
	}
}

// TestVerifyCatchesMisplacedRecords: an index whose offsets do not describe
// the file (shifted, or records swapped) fails Verify for the records it
// misplaces, instead of handing out other bytes, and so does the learners'
// check of the mapped file (Heads). The one blind spot: a
// value in overflow pages put at the start of another overflow run (live or
// freed) with room for it, since an overflow page's header does not say
// whose value it holds.
func TestVerifyCatchesMisplacedRecords(t *testing.T) {
	x, dataPath, img := builtMixed(t)
	// Where overflow values start, or started: freed runs keep their headers.
	runs := map[int64]bool{}
	for pg := int64(2); (pg+1)*int64(x.psize) <= int64(len(img)); pg++ {
		h := img[pg*int64(x.psize):]
		if int64(le.Uint64(h)) == pg && le.Uint16(h[10:])&lmdbPageTypes == lmdbOverflow {
			runs[pg*int64(x.psize)+lmdbPageHeader] = true
		}
	}
	swapped := shifted(x, 0)
	for i := 0; i+1 < len(swapped.off); i += 2 {
		swapped.off[i], swapped.off[i+1] = swapped.off[i+1], swapped.off[i]
	}
	cases := map[string]*Index{
		"shifted by 1":       shifted(x, 1),
		"shifted by -2":      shifted(x, -2),
		"shifted by a page":  shifted(x, int64(x.psize)),
		"shifted by 8 pages": shifted(x, 8*int64(x.psize)),
		"pairs swapped":      swapped,
	}
	for name, y := range cases {
		s := y.Source(dataPath)
		caught, misplaced := 0, 0
		for i := range s.Len() {
			if y.off[i] == x.off[i] {
				continue
			}
			misplaced++
			p := s.Pieces(i, nil)[0]
			off, n := y.Extent(i)
			headsErr := y.heads().Check(img, i, off, n, y.Key(i))
			if p.Off < 0 || p.End() > int64(len(img)) {
				caught++ // a reader fails on a read outside the file
				if p.Off < 0 && headsErr == nil {
					t.Errorf("%s: record %d put at %d, its head before the file's start, passed Heads", name, i, off)
				}
				continue
			}
			err := s.(source.Verifier).Verify(i, img[p.Off:p.End()])
			if (err == nil) != (headsErr == nil) {
				t.Errorf("%s: record %d put at %d: Verify says %v, Heads %v", name, i, off, err, headsErr)
			}
			if err == nil {
				if !runs[y.off[i]] {
					t.Errorf("%s: record %d put at %d passed Verify", name, i, y.off[i])
				}
				continue
			}
			if !errors.Is(err, source.ErrCorrupt) || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: record %d: %v does not wrap both sentinels", name, i, err)
			}
			caught++
		}
		t.Logf("%s: %d of %d misplaced records caught", name, caught, misplaced)
	}
}

func TestVerifyWrongLength(t *testing.T) {
	x, dataPath, img := builtMixed(t)
	s := x.Source(dataPath)
	block := blockOf(s, img, 0)
	for _, b := range [][]byte{nil, block[:len(block)-1], append(bytes.Clone(block), 0)} {
		if err := s.(source.Verifier).Verify(0, b); !errors.Is(err, source.ErrCorrupt) {
			t.Errorf("Verify of %d bytes (want %d) = %v", len(b), len(block), err)
		}
	}
}

// FuzzVerify: any bytes as any record's block. Verify never panics, its
// errors wrap both sentinels, and what it accepts carries what the index
// says about the record: the overflow page's number, or the leaf node's
// value size and key.
func FuzzVerify(f *testing.F) {
	x, dataPath, img := builtMixed(f)
	s := x.Source(dataPath)
	for _, i := range []int{0, 1, x.Len() / 2, x.Len() - 1} {
		f.Add(uint16(i), bytes.Clone(blockOf(s, img, i)))
	}
	for i := range x.Len() {
		if x.overflow(i) {
			f.Add(uint16(i), bytes.Clone(blockOf(s, img, i)))
			break
		}
	}
	v := s.(source.Verifier)
	f.Fuzz(func(t *testing.T, r uint16, block []byte) {
		i := int(r) % x.Len()
		err := v.Verify(i, block)
		if err != nil {
			if !errors.Is(err, source.ErrCorrupt) || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap both sentinels", err)
			}
			return
		}
		if int64(len(block)) != s.DecodedLen(i) {
			t.Fatalf("accepted %d bytes for a block of %d", len(block), s.DecodedLen(i))
		}
		if x.overflow(i) {
			if pg := le.Uint64(block); pg*uint64(x.psize)+lmdbPageHeader != uint64(x.off[i]) {
				t.Fatalf("accepted overflow page %d for a value at %d", pg, x.off[i])
			}
			return
		}
		k := x.Key(i)
		if dsize := uint32(le.Uint16(block)) | uint32(le.Uint16(block[2:]))<<16; dsize != x.size[i] ||
			!bytes.Equal(block[lmdbNodeHeader:lmdbNodeHeader+len(k)], k) {
			t.Fatalf("accepted a node of a %d-byte value with key %q for record %d", dsize, block[lmdbNodeHeader:], i)
		}
	})
}

// FuzzHeadsCheck: any bytes in front of any record's value, at the place
// the index says or moved by up to a page either way, with any page size.
// Check never panics, its errors wrap both sentinels, and where the place
// is the index's own it accepts exactly what Verify accepts.
func FuzzHeadsCheck(f *testing.F) {
	x, dataPath, img := builtMixed(f)
	s := x.Source(dataPath)
	f.Add(uint16(0), int16(0), uint8(0), []byte{})
	f.Add(uint16(x.Len()-1), int16(-3), uint8(1), []byte{1, 2, 3})
	f.Add(uint16(x.Len()/2), int16(0), uint8(2), []byte("\x10\x00\x00\x00\x00\x00\x00\x00"))
	file := bytes.Clone(img)
	sizes := []int64{int64(x.psize), 512, 65536, 4095, 0}
	f.Fuzz(func(t *testing.T, r uint16, move int16, size uint8, patch []byte) {
		i := int(r) % x.Len()
		h := Heads{PageSize: sizes[int(size)%len(sizes)]}
		off, n := x.Extent(i)
		off += int64(move) % (int64(x.psize) + 1)
		start := max(off-x.prefixLen(i), 0)
		patched := file[start:min(start+int64(len(patch)), int64(len(file)))]
		copy(patched, patch)
		defer copy(patched, img[start:])
		err := h.Check(file, i, off, n, x.Key(i))
		if err != nil && (!errors.Is(err, source.ErrCorrupt) || !errors.Is(err, ErrCorrupt)) {
			t.Fatalf("error %v does not wrap both sentinels", err)
		}
		if move != 0 || h.PageSize != int64(x.psize) {
			return
		}
		p := s.Pieces(i, nil)[0]
		if verr := s.(source.Verifier).Verify(i, file[p.Off:p.End()]); (verr == nil) != (err == nil) {
			t.Fatalf("record %d: Verify says %v, Heads %v", i, verr, err)
		}
	})
}

// damagedAt reads img, with the bytes in front of two records' values
// zeroed; the read of the first of them waits (up to a second) for that of
// the second, so that it fails last.
type damagedAt struct {
	img      []byte
	x        *Index
	bad      [2]int
	lastDone chan struct{}
}

func (d *damagedAt) ReadAt(p []byte, off int64) (int, error) {
	n := copy(p, d.img[off:])
	switch off {
	case d.x.off[d.bad[0]] - d.x.prefixLen(d.bad[0]):
		select {
		case <-d.lastDone:
		case <-time.After(time.Second):
		}
	case d.x.off[d.bad[1]] - d.x.prefixLen(d.bad[1]):
		defer close(d.lastDone)
	default:
		return n, nil
	}
	clear(p[:n])
	return n, nil
}

// TestSpotCheckReportsTheFirstRecord: the spot check's reads go out
// together, but of two damaged records it reports the first in index
// order, however the reads finish.
func TestSpotCheckReportsTheFirstRecord(t *testing.T) {
	x, _, img := builtMixed(t)
	if err := x.spotCheck(bytes.NewReader(img)); err != nil {
		t.Fatalf("spot check of the file the index describes: %v", err)
	}
	n := x.Len()
	checked := func(s int) int { return s * (n - 1) / (spotChecks - 1) }
	d := &damagedAt{img: img, x: x, bad: [2]int{checked(1), checked(spotChecks - 2)}, lastDone: make(chan struct{})}
	err := x.spotCheck(d)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("spot check of damaged records = %v, want ErrCorrupt", err)
	}
	if want := fmt.Sprintf("record %d ", d.bad[0]); !strings.Contains(err.Error(), want) {
		t.Errorf("spot check = %v, want the error of %s", err, want)
	}
}
