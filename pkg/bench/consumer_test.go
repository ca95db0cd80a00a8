package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"testing"
)

func TestParseConsumer(t *testing.T) {
	for _, k := range []ConsumerKind{Touch, NoConsumer, SHA256} {
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
		wantSink   byte
	}{
		{kind: SHA256, wantDigest: want},
		{kind: NoConsumer},
		// 10000 bytes of 1 touched at 0, 4096 and 8192: 1^1^1; then 'v'.
		{kind: Touch, wantSink: 1 ^ 'v'},
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
