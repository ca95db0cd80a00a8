//go:build linux

package shm

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

func TestCreateOpenShareMemory(t *testing.T) {
	job := testJob(t)
	cleanup(t, job)
	name := Name(job, "arena")
	const size = 3*4096 + 100
	a, err := Create(name, size)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got := len(a.Bytes()); got != size {
		t.Fatalf("len(Bytes) = %d, want %d", got, size)
	}
	if p := uintptr(unsafe.Pointer(&a.Bytes()[0])); p%4096 != 0 {
		t.Fatalf("data region at %#x is not 4096-byte aligned", p)
	}
	for i, c := range a.Bytes() {
		if c != 0 {
			t.Fatalf("byte %d of a new segment is %d", i, c)
		}
	}
	b, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	inf := b.Info()
	if inf.CreatorPID != os.Getpid() || inf.Size != size || inf.Job != job || inf.CreatorStart != selfStart() {
		t.Fatalf("Info = %+v", inf)
	}
	a.Bytes()[0], a.Bytes()[size-1] = 1, 2
	b.Bytes()[4096] = 3
	if b.Bytes()[0] != 1 || b.Bytes()[size-1] != 2 || a.Bytes()[4096] != 3 {
		t.Fatal("the two mappings do not share memory")
	}
}

func TestShareWithChildProcess(t *testing.T) {
	job := testJob(t)
	cleanup(t, job)
	s, err := Create(Name(job, "x"), 10000)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.Bytes()
	for i := range b {
		b[i] = pattern(i)
	}
	cmd, _ := startChild(t, "check", s.Name(), "")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	for i := range b {
		if b[i] != ^pattern(i) {
			t.Fatalf("byte %d is %d after the child wrote %d", i, b[i], ^pattern(i))
		}
	}
}

func TestCreateExistingNameFails(t *testing.T) {
	job := testJob(t)
	cleanup(t, job)
	name := Name(job, "dup")
	s, err := Create(name, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = Create(name, 1)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Create: %v, want fs.ErrExist", err)
	}
	// The failed Create must not have removed the first segment.
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

func TestOpenMissing(t *testing.T) {
	_, err := Open(Name(testJob(t), "none"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open: %v, want fs.ErrNotExist", err)
	}
}

func TestBadNames(t *testing.T) {
	for _, name := range []string{"", ".", "..", "a/b", "x\x00"} {
		if _, err := Create(name, 1); err == nil {
			t.Errorf("Create(%q) succeeded", name)
		}
		if _, err := Open(name); err == nil {
			t.Errorf("Open(%q) succeeded", name)
		}
	}
}

func TestUnlinkKeepsMappingCloseIsIdempotent(t *testing.T) {
	job := testJob(t)
	cleanup(t, job)
	s, err := Create(Name(job, "u"), 4096)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Open(s.Name())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Unlink(); err != nil {
		t.Fatal(err)
	}
	if err := o.Unlink(); err != nil {
		t.Fatalf("second Unlink of a removed name: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, s.Name())); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("name still present after Unlink: %v", err)
	}
	s.Bytes()[10] = 42
	if o.Bytes()[10] != 42 {
		t.Fatal("mappings no longer shared after Unlink")
	}
	for _, seg := range []*Segment{s, o} {
		for i := 0; i < 2; i++ {
			if err := seg.Close(); err != nil {
				t.Fatalf("Close #%d: %v", i+1, err)
			}
		}
		if seg.Bytes() != nil {
			t.Fatal("Bytes not nil after Close")
		}
	}
}

func TestZeroSizeSegment(t *testing.T) {
	job := testJob(t)
	cleanup(t, job)
	s, err := Create(Name(job, "empty"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o, err := Open(s.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if len(s.Bytes()) != 0 || len(o.Bytes()) != 0 {
		t.Fatalf("lengths %d, %d", len(s.Bytes()), len(o.Bytes()))
	}
}

func TestOpenRejectsDamagedSegments(t *testing.T) {
	good := make([]byte, HeaderSize+100)
	marshalHeader(good, Info{Job: "j", CreatorPID: 1, Size: 100})
	tests := []struct {
		name   string
		mutate func([]byte) []byte
	}{
		{"empty file", func(b []byte) []byte { return nil }},
		{"shorter than the header", func(b []byte) []byte { return b[:HeaderSize-1] }},
		{"zeros", func(b []byte) []byte { return make([]byte, len(b)) }},
		{"other magic", func(b []byte) []byte { b[0] = 'X'; return b }},
		{"flipped bit", func(b []byte) []byte { b[offSize] ^= 1; return b }},
		{"data cut short", func(b []byte) []byte { return b[:len(b)-1] }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := testJob(t)
			cleanup(t, job)
			name := Name(job, "bad")
			if err := os.WriteFile(filepath.Join(dir, name), tt.mutate(append([]byte(nil), good...)), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(name)
			if err == nil {
				s.Close()
			}
			if !errors.Is(err, ErrBadHeader) {
				t.Fatalf("Open: %v, want ErrBadHeader", err)
			}
		})
	}
	t.Run("intact", func(t *testing.T) {
		job := testJob(t)
		cleanup(t, job)
		name := Name(job, "good")
		if err := os.WriteFile(filepath.Join(dir, name), good, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(name)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	})
}
