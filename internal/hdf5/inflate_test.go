package hdf5

import (
	"bytes"
	stdzlib "compress/zlib"
	"io"
	"math/rand/v2"
	"testing"

	kpzlib "github.com/klauspost/compress/zlib"
)

// chunkSamples are 1 MiB chunks as HDF5's deflate filter stores them at
// h5py's default level 4: "pixels" with 6 bits of entropy each (what
// lmdbio gen writes), and a smooth random walk (photographs compress
// better than noise), each also shuffled as 4-byte elements.
func chunkSamples(tb testing.TB) map[string][]byte {
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(1, 2))
	noise, walk := make([]byte, n), make([]byte, n)
	v := 128
	for i := range n {
		noise[i] = byte(64 + rng.IntN(64))
		v = min(255, max(0, v+rng.IntN(7)-3))
		walk[i] = byte(v)
	}
	shuffled := func(src []byte) []byte {
		dst := make([]byte, len(src))
		m := len(src) / 4
		for i := range m {
			for j := range 4 {
				dst[j*m+i] = src[i*4+j]
			}
		}
		return dst
	}
	out := map[string][]byte{}
	for name, raw := range map[string][]byte{"pixels": noise, "walk": walk, "walk-shuffled": shuffled(walk)} {
		var buf bytes.Buffer
		w, _ := stdzlib.NewWriterLevel(&buf, 4)
		w.Write(raw)
		w.Close()
		out[name] = buf.Bytes()
	}
	return out
}

// BenchmarkInflate compares the standard library's zlib with
// github.com/klauspost/compress's on HDF5 deflate chunks; the faster one
// decodes chunks (filter.go). Bytes are the inflated bytes.
func BenchmarkInflate(b *testing.B) {
	impls := []struct {
		name  string
		open  func(io.Reader) (io.ReadCloser, error)
		reset func(io.ReadCloser, io.Reader) error
	}{
		{"stdlib", stdzlib.NewReader, func(r io.ReadCloser, src io.Reader) error { return r.(stdzlib.Resetter).Reset(src, nil) }},
		{"klauspost", kpzlib.NewReader, func(r io.ReadCloser, src io.Reader) error { return r.(kpzlib.Resetter).Reset(src, nil) }},
	}
	samples := chunkSamples(b)
	dst := make([]byte, 1<<20)
	for _, data := range []string{"pixels", "walk", "walk-shuffled"} {
		src := samples[data]
		for _, impl := range impls {
			b.Run("impl="+impl.name+"/data="+data, func(b *testing.B) {
				r, err := impl.open(bytes.NewReader(src))
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(dst)))
				for b.Loop() {
					if err := impl.reset(r, bytes.NewReader(src)); err != nil {
						b.Fatal(err)
					}
					if _, err := io.ReadFull(r, dst); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(dst))/float64(len(src)), "ratio")
			})
		}
	}
}

// TestInflate: inflate accepts exactly the chunk's bytes, fills a shorter
// destination and checks the rest.
func TestInflate(t *testing.T) {
	raw := bytes.Repeat([]byte("hdf5 chunk "), 1000)
	var buf bytes.Buffer
	w := stdzlib.NewWriter(&buf)
	w.Write(raw)
	w.Close()
	z := buf.Bytes()
	size := int64(len(raw))
	dst := make([]byte, size)
	if err := inflate(dst, z, size); err != nil || !bytes.Equal(dst, raw) {
		t.Fatalf("inflate: %v", err)
	}
	part := make([]byte, 100)
	if err := inflate(part, z, size); err != nil || !bytes.Equal(part, raw[:100]) {
		t.Fatalf("inflate into 100 bytes: %v", err)
	}
	bad := append([]byte(nil), z...)
	bad[len(bad)-1] ^= 1 // the Adler-32 sum
	for name, tc := range map[string]struct {
		src  []byte
		size int64
	}{
		"longer than the chunk":  {z, size - 1},
		"shorter than the chunk": {z, size + 1},
		"bad checksum":           {bad, size},
		"truncated":              {z[:len(z)/2], size},
		"not zlib":               {raw[:50], size},
	} {
		if err := inflate(make([]byte, min(tc.size, size)), tc.src, tc.size); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestUnshuffle(t *testing.T) {
	// 5 elements of 3 bytes, then 2 bytes that fill no element.
	want := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}
	shuffled := []byte{1, 4, 7, 10, 13, 2, 5, 8, 11, 14, 3, 6, 9, 12, 15, 16, 17}
	for n := range len(want) + 1 {
		dst := make([]byte, n)
		unshuffle(dst, shuffled, 3)
		if !bytes.Equal(dst, want[:n]) {
			t.Errorf("first %d bytes: %v", n, dst)
		}
	}
	dst := make([]byte, 2)
	unshuffle(dst, []byte{7, 8}, 4) // fewer bytes than an element: as is
	if !bytes.Equal(dst, []byte{7, 8}) {
		t.Errorf("short: %v", dst)
	}
}
