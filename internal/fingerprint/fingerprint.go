package fingerprint

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"os"

	"github.com/lmdbio/lmdbio/internal/source"
)

const (
	// samples is how many records' values are read: enough that a file
	// rewritten with other values is very unlikely to keep them all, few
	// enough that rank 0's Open stays a handful of small reads longer.
	samples = 16
	// sampleBytes is how much of a sampled value is hashed.
	sampleBytes = 4 << 10
	// decodeBudget bounds the decoded bytes of the sampled blocks of a
	// compressed dataset (an HDF5 chunk run may be many MiB): samples past
	// it are left out, the same ones on every call, as the layout decides.
	decodeBudget = 16 << 20
)

// Of returns the fingerprint of the dataset src describes, reading the
// sampled values from the file src.Info().Path.
func Of(src source.Source) (string, error) {
	h := sha256.New()
	w := &writer{h: h}
	info := src.Info()
	w.str(info.Format)
	w.int(int64(src.Len()))
	for i := range src.Len() {
		b, off := src.BlockOf(i)
		w.str(string(src.Key(i)))
		w.str(string(src.Label(i)))
		w.int(src.ValueLen(i))
		w.int(int64(b))
		w.int(off)
	}
	var pieces []source.Extent
	w.int(int64(src.Blocks()))
	for b := range src.Blocks() {
		pieces = src.Pieces(b, pieces[:0])
		w.int(int64(len(pieces)))
		for _, p := range pieces {
			w.int(p.Off)
			w.int(p.Len)
		}
		w.int(src.DecodedLen(b))
	}
	if err := sampleValues(src, w); err != nil {
		return "", fmt.Errorf("fingerprint of %s: %w", info.Path, err)
	}
	w.flush()
	return info.Format + ":sha256:" + hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// sampleValues hashes the first bytes of the values of records spread
// evenly over the dataset, the first and the last among them.
func sampleValues(src source.Source, w *writer) error {
	n := src.Len()
	if n == 0 {
		return nil
	}
	f, err := os.Open(src.Info().Path)
	if err != nil {
		return err
	}
	defer f.Close()
	k := min(n, samples)
	budget := int64(decodeBudget)
	for s := range k {
		i := s * (n - 1) / max(k-1, 1)
		if src.Decoder() != nil {
			b, _ := src.BlockOf(i)
			cost := src.DecodedLen(b)
			if s > 0 && cost > budget {
				continue
			}
			budget -= cost
		}
		v, err := valueHead(src, f, i)
		if err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		w.int(int64(i))
		w.str(string(v))
	}
	return nil
}

// valueHead reads the first sampleBytes of record i's value: straight from
// the file when its block is stored as is, else by decoding its block.
func valueHead(src source.Source, f *os.File, i int) ([]byte, error) {
	b, off := src.BlockOf(i)
	n := min(src.ValueLen(i), sampleBytes)
	pieces := src.Pieces(b, nil)
	dec := src.Decoder()
	if dec == nil {
		if len(pieces) != 1 {
			return nil, fmt.Errorf("block %d stored as is has %d pieces", b, len(pieces))
		}
		v := make([]byte, n)
		_, err := f.ReadAt(v, pieces[0].Off+off)
		return v, err
	}
	stored := make([][]byte, len(pieces))
	for j, p := range pieces {
		stored[j] = make([]byte, p.Len)
		if _, err := f.ReadAt(stored[j], p.Off); err != nil {
			return nil, err
		}
	}
	block := make([]byte, src.DecodedLen(b))
	if err := dec.Decode(b, stored, block); err != nil {
		return nil, err
	}
	return block[off : off+n], nil
}

// writer feeds a hash length-prefixed fields through a buffer, so that a
// million records cost a few hundred hash calls rather than millions.
type writer struct {
	h   hash.Hash
	buf []byte
}

func (w *writer) int(v int64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(v))
	w.spill()
}

func (w *writer) str(s string) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(len(s)))
	w.buf = append(w.buf, s...)
	w.spill()
}

func (w *writer) spill() {
	if len(w.buf) >= 64<<10 {
		w.flush()
	}
}

func (w *writer) flush() {
	w.h.Write(w.buf)
	w.buf = w.buf[:0]
}
