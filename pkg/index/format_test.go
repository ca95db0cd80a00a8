package index

import (
	"bytes"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
)

// sample is a small hand-built index.
func sample() *Index {
	return &Index{
		id:     Identity{Size: 1 << 20, TxnID: 7, MtimeNs: 1700000000123456789},
		psize:  4096,
		keys:   []byte("applebananacherry"),
		keyOff: []uint32{0, 5, 11, 11, 17},
		off:    []int64{2*4096 + 100, 3*4096 + 16, 9000, 1<<20 - 10},
		size:   []uint32{5, 50000, 0, 10},
		total:  50015,
	}
}

func equalIndex(a, b *Index) bool {
	if a.Len() != b.Len() || a.Identity() != b.Identity() || a.TotalBytes() != b.TotalBytes() {
		return false
	}
	for i := range a.Len() {
		ao, an := a.Extent(i)
		bo, bn := b.Extent(i)
		if !bytes.Equal(a.Key(i), b.Key(i)) || ao != bo || an != bn {
			return false
		}
	}
	return true
}

func TestMarshalRoundTrip(t *testing.T) {
	for name, x := range map[string]*Index{"sample": sample(), "zero": {}} {
		b, err := x.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		y, err := Unmarshal(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !equalIndex(x, y) {
			t.Fatalf("%s: round trip changed the index", name)
		}
		b[len(b)/2] ^= 1 // y must not alias b
		if !equalIndex(x, y) {
			t.Fatalf("%s: unmarshalled index aliases its input", name)
		}
	}
}

// reseal recomputes the checksum after an edit, to reach the checks behind it.
func reseal(b []byte) []byte {
	body := b[:len(b)-trailerSize]
	le.PutUint32(b[len(body):], crc32.Checksum(body, castagnoli))
	return b
}

func TestUnmarshalRejects(t *testing.T) {
	good, _ := sample().MarshalBinary()
	n := sample().Len()
	keyOffs := headerSize
	offs := keyOffs + 4*(n+1)
	sizes := offs + 8*n
	tests := []struct {
		name string
		edit func(b []byte) []byte
	}{
		{"empty", func([]byte) []byte { return nil }},
		{"truncated header", func(b []byte) []byte { return b[:40] }},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }},
		{"appended byte", func(b []byte) []byte { return reseal(append(b[:len(b):len(b)], 0, 0, 0, 0, 0)) }},
		{"bad magic", func(b []byte) []byte { b[0] = 'X'; return reseal(b) }},
		{"version 1", func(b []byte) []byte { le.PutUint32(b[8:], 1); return reseal(b) }},
		{"other version", func(b []byte) []byte { le.PutUint32(b[8:], 3); return reseal(b) }},
		{"page size not a power of 2", func(b []byte) []byte { b[12] = 1; return reseal(b) }},
		{"page size 0", func(b []byte) []byte { le.PutUint32(b[12:], 0); return reseal(b) }},
		{"page size 128 KiB", func(b []byte) []byte { le.PutUint32(b[12:], 1<<17); return reseal(b) }},
		{"value in a meta page", func(b []byte) []byte { le.PutUint64(b[offs:], 100); return reseal(b) }},
		{"leaf value overlapping its node", func(b []byte) []byte { le.PutUint64(b[offs:], 2*4096+20); return reseal(b) }},
		{"leaf value across a page end", func(b []byte) []byte { le.PutUint64(b[offs:], 3*4096-4); return reseal(b) }},
		{"bad checksum", func(b []byte) []byte { b[len(b)-1] ^= 0xff; return b }},
		{"flipped body bit", func(b []byte) []byte { b[keyOffs+3] ^= 0x10; return b }},
		{"huge count", func(b []byte) []byte { le.PutUint64(b[40:], 1<<60); return reseal(b) }},
		{"count off by one", func(b []byte) []byte { le.PutUint64(b[40:], uint64(n+1)); return reseal(b) }},
		{"huge key blob", func(b []byte) []byte { le.PutUint64(b[48:], 1<<62); return reseal(b) }},
		{"negative file size", func(b []byte) []byte { le.PutUint64(b[16:], 1<<63); return reseal(b) }},
		{"first key offset", func(b []byte) []byte { le.PutUint32(b[keyOffs:], 1); return reseal(b) }},
		{"key offsets descend", func(b []byte) []byte { le.PutUint32(b[keyOffs+8:], 3); return reseal(b) }},
		{"key offsets end early", func(b []byte) []byte { le.PutUint32(b[keyOffs+4*n:], 16); return reseal(b) }},
		{"negative value offset", func(b []byte) []byte { le.PutUint64(b[offs:], 1<<63); return reseal(b) }},
		{"value past file end", func(b []byte) []byte { le.PutUint32(b[sizes+12:], 11); return reseal(b) }},
		{"value offset past end", func(b []byte) []byte { le.PutUint64(b[offs+8:], 1<<40); return reseal(b) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Unmarshal(tc.edit(bytes.Clone(good)))
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Unmarshal = %v, want ErrCorrupt", err)
			}
			t.Log(err)
		})
	}
	// Every single-bit flip anywhere is caught.
	for i := range len(good) * 8 {
		b := bytes.Clone(good)
		b[i/8] ^= 1 << (i % 8)
		if _, err := Unmarshal(b); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("bit %d flipped: Unmarshal = %v, want ErrCorrupt", i, err)
		}
	}
}

// FuzzUnmarshal: Unmarshal never panics, and whatever it accepts marshals
// back to the same bytes (the format has one encoding per index).
func FuzzUnmarshal(f *testing.F) {
	b, _ := sample().MarshalBinary()
	f.Add(b)
	z, _ := (&Index{}).MarshalBinary()
	f.Add(z)
	f.Add([]byte(magic))
	if lmdbtest.Available() {
		_, dataPath, _ := writeDB(f, lmdbtest.Spec{Txns: mixedSpec.Txns[:1]})
		x, err := Build(dataPath)
		if err != nil {
			f.Fatal(err)
		}
		b, _ := x.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := Unmarshal(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		again, _ := x.MarshalBinary()
		if !bytes.Equal(again, b) {
			t.Fatalf("accepted input does not round-trip")
		}
	})
}

// TestBuiltIndexesRoundTrip: what Build makes, Unmarshal accepts, for
// databases of every shape liblmdb writes: long keys, empty values (whose
// node may end its page, putting the value at the next page's first byte),
// overflow values, freed and reused pages.
func TestBuiltIndexesRoundTrip(t *testing.T) {
	lmdbtest.Require(t)
	specs := map[string]lmdbtest.Gen{
		"long keys, empty and overflow values": {Seed: 20240611, Records: 1500, KeyLen: 200, SmallMax: 40,
			BigEvery: 9, BigMin: 4100, BigMax: 14000, Txns: 25, Churn: 30},
		"short keys":    {Seed: 3, Records: 1000, KeyLen: 4, SmallMax: 100, Txns: 3, Churn: 30},
		"511-byte keys": {Seed: 4, Records: 500, KeyLen: 511, SmallMax: 2, BigEvery: 3, BigMin: 2000, BigMax: 5000, Txns: 3},
	}
	for name, g := range specs {
		t.Run(name, func(t *testing.T) {
			_, dataPath, oracle := writeDB(t, lmdbtest.Generate(g))
			x, err := Build(dataPath)
			if err != nil {
				t.Fatal(err)
			}
			b, err := x.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			y, err := Unmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstOracle(t, y, dataPath, oracle)
		})
	}
}
