package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"testing"
)

func TestParseConsumer(t *testing.T) {
	for _, k := range []ConsumerKind{TouchPages, NoConsumer, SHA256} {
		got, err := ParseConsumer(k.String())
		if err != nil || got != k {
			t.Errorf("ParseConsumer(%q) = %v, %v", k.String(), got, err)
		}
	}
	if _, err := ParseConsumer("md5"); err == nil {
		t.Error("ParseConsumer(md5) accepted")
	}
}

func TestConsumer(t *testing.T) {
	records := []struct{ key, value []byte }{
		{[]byte("00000001"), bytes.Repeat([]byte{1}, 10000)},
		{[]byte("00000002"), []byte{}},
		{[]byte("k"), []byte("v")},
	}
	// The digest as lmdbio digest defines it, computed independently.
	var want uint64
	for _, r := range records {
		s := sha256.Sum256(append(append([]byte(nil), r.key...), r.value...))
		want += binary.LittleEndian.Uint64(s[:8])
	}
	cases := []struct {
		kind       ConsumerKind
		wantDigest uint64
		wantSink   uint64
	}{
		{kind: SHA256, wantDigest: want},
		{kind: NoConsumer},
		// 10000 bytes of 1 read at 0, 4096, 8192 and 9999; then 'v' as
		// first and last byte.
		{kind: TouchPages, wantSink: 4 + 2*'v'},
	}
	for _, c := range cases {
		t.Run(c.kind.String(), func(t *testing.T) {
			con := NewConsumer(c.kind)
			for _, r := range records {
				con.Consume(r.key, r.value)
			}
			if con.Records != 3 || con.Bytes != 10001 {
				t.Errorf("records %d bytes %d, want 3 and 10001", con.Records, con.Bytes)
			}
			if con.Digest != c.wantDigest || con.Sink != c.wantSink {
				t.Errorf("digest %x sink %d, want %x and %d", con.Digest, con.Sink, c.wantDigest, c.wantSink)
			}
		})
	}
}

// TestTouchCoversEveryPage places values of many lengths at many offsets
// within a page and checks that Touch reads at least one byte in every page
// the value spans, the last one included: with only that page's bytes set to
// 1, the sum of what Touch read must be positive.
func TestTouchCoversEveryPage(t *testing.T) {
	const page = 4096
	buf := make([]byte, 5*page)
	for _, n := range []int{1, 2, 100, page - 1, page, page + 1, 2*page - 1, 2 * page, 2*page + 1, 10000, 3*page + 17} {
		for start := 0; start < page; start += 97 {
			value := buf[start : start+n]
			for p := start / page; p <= (start+n-1)/page; p++ {
				lo, hi := max(p*page, start), min((p+1)*page, start+n)
				for i := lo; i < hi; i++ {
					buf[i] = 1
				}
				got := Touch(value)
				for i := lo; i < hi; i++ {
					buf[i] = 0
				}
				if got == 0 {
					t.Fatalf("value of %d bytes at page offset %d: page %d (bytes %d..%d of the value) not read",
						n, start, p-start/page, lo-start, hi-start-1)
				}
			}
		}
	}
	if Touch(nil) != 0 {
		t.Error("Touch(nil) != 0")
	}
}
