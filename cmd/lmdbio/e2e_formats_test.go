package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
	"golang.org/x/sys/unix"
)

// checkBadInputQuickly asserts that a command refused its input as bad
// input (status 2, one line starting prefix, no report) within seconds.
func checkBadInputQuickly(t *testing.T, r result, prefix string) {
	t.Helper()
	checkOneLineError(t, r, 2, prefix)
	if r.stdout != "" {
		t.Errorf("printed a report for bad input:\n%s", r)
	}
	if r.timedOut || r.elapsed > 20*time.Second {
		t.Errorf("took %v (timed out: %v), want well under 20 s:\n%s", r.elapsed, r.timedOut, r)
	}
}

// TestE2ENotAFile: a FIFO, a directory or a device where the data file
// should be is bad input for digest, index and info: status 2 and one line,
// never a hang on the FIFO.
func TestE2ENotAFile(t *testing.T) {
	mkfifo := func(t *testing.T, p string) {
		if err := unix.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		make func(t *testing.T) string
	}{
		{"fifo", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "fifo.mdb")
			mkfifo(t, p)
			return p
		}},
		{"fifo as data.mdb", func(t *testing.T) string {
			dir := t.TempDir()
			mkfifo(t, filepath.Join(dir, "data.mdb"))
			return dir
		}},
		{"directory as data.mdb", func(t *testing.T) string {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "data.mdb"), 0o755); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{"/dev/zero", func(*testing.T) string { return "/dev/zero" }},
		{"/dev/null", func(*testing.T) string { return "/dev/null" }},
		{"symlink to /dev/zero as data.mdb", func(t *testing.T) string {
			dir := t.TempDir()
			if err := os.Symlink("/dev/zero", filepath.Join(dir, "data.mdb")); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := c.make(t)
			for _, cmd := range []string{"digest", "index", "info"} {
				r := lmdbio(t, nil, cmd, path)
				checkBadInputQuickly(t, r, "lmdbio: "+path+": ")
			}
		})
	}
}

// TestE2EHugeClaims: a 1 TiB sparse file whose meta pages claim 10^12
// records is a corrupt dataset (status 2, one line), not a runtime out of
// memory.
func TestE2EHugeClaims(t *testing.T) {
	dir := t.TempDir()
	lmdbtest.Claim(t, filepath.Join(dir, "data.mdb"), 1<<40, lmdbtest.Claims{PageSize: 4096, Entries: 1e12, Depth: 1, Root: 2})
	for _, args := range [][]string{{"digest"}, {"digest", "--mode", "lmdb"}, {"index"}, {"info"}} {
		r := lmdbio(t, nil, append(args, dir)...)
		checkBadInputQuickly(t, r, "lmdbio: "+dir+": ")
	}
}

// TestE2ESidecarsNotTrusted: what sits where the index sidecar belongs
// cannot hang digest or index, feed them without end, or change the data:
// a FIFO, a link to /dev/zero, and a sidecar whose checksum holds over a
// record moved a few bytes (a record the check at load does not sample, so
// only the check after each read can catch it).
func TestE2ESidecarsNotTrusted(t *testing.T) {
	plant := map[string]func(t *testing.T, side string){
		"fifo": func(t *testing.T, side string) {
			if err := unix.Mkfifo(side, 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"link to /dev/zero": func(t *testing.T, side string) {
			if err := os.Symlink("/dev/zero", side); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, plant := range plant {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, want := genDB(t, "--records", "300", "--size", "500,100")
			plant(t, filepath.Join(dir, "lmdbio.idx"))
			for _, cmd := range []string{"index", "digest"} {
				r := lmdbio(t, nil, cmd, dir)
				if r.code != 0 || r.timedOut || r.elapsed > 20*time.Second {
					t.Fatalf("%s with a planted sidecar:\n%s", cmd, r)
				}
				if cmd == "digest" && strings.TrimSpace(r.stdout) != want.String() {
					t.Errorf("digest = %q, want %q", r.stdout, want)
				}
			}
		})
	}
	t.Run("record moved, checksum valid", func(t *testing.T) {
		t.Parallel()
		dir, want := genDB(t, "--records", "300", "--size", "500,100")
		if r := lmdbio(t, nil, "index", dir); r.code != 0 {
			t.Fatalf("index:\n%s", r)
		}
		side := filepath.Join(dir, "lmdbio.idx")
		b, err := os.ReadFile(side)
		if err != nil {
			t.Fatal(err)
		}
		// Record 1 (not among the records Load samples) moves 2 bytes on.
		n := binary.LittleEndian.Uint64(b[40:])
		at := 56 + 4*(n+1) + 8*1
		binary.LittleEndian.PutUint64(b[at:], binary.LittleEndian.Uint64(b[at:])+2)
		body := b[:len(b)-4]
		binary.LittleEndian.PutUint32(b[len(body):], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
		if err := os.WriteFile(side, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r := lmdbio(t, nil, "digest", dir)
		if strings.Contains(r.stdout, "digest=") {
			if strings.TrimSpace(r.stdout) != want.String() {
				t.Fatalf("digest of other bytes than the file's:\n%s\nwant %s", r, want)
			}
			return // the sidecar was found out at load and rebuilt
		}
		if r.code == 0 || len(lines(r.stderr)) != 1 || !strings.HasPrefix(r.stderr, "lmdbio: "+dir+": ") {
			t.Errorf("want a non-zero status and one error line:\n%s", r)
		}
		checkNoPanic(t, r)
		if !strings.Contains(r.stderr, "does not match its index") {
			t.Errorf("the error does not say the file and its index disagree:\n%s", r)
		}
	})
}

// TestE2EWriterDuringRun: a writer that rewrites half of the records over
// and over while digest reads the database epoch after epoch. With the lock
// file, the node reader holds the indexed snapshot and every epoch digests
// it; without one, the run stops with one line saying the database changed,
// unless every epoch after the first came from the node cache (filled
// before the writer started: the snapshot's bytes). Never a digest of other
// bytes.
func TestE2EWriterDuringRun(t *testing.T) {
	for _, c := range []struct {
		mode  string
		lock  bool
		cache string
	}{{"default", true, "auto"}, {"default", false, "0"}, {"default", false, "auto"}, {"lmm+dio+prov", false, "0"},
		{"lmm", true, "auto"}, {"lmm", false, "auto"}, {"lmm+dio", true, "auto"}, {"lmm+dio", false, "auto"},
		{"lmdb", true, "auto"}, {"lmdb", false, "auto"}} {
		mode, lock, cache := c.mode, c.lock, c.cache
		t.Run(fmt.Sprintf("mode=%s,lock=%v,cache=%s", mode, lock, cache), func(t *testing.T) {
			dir, want := genDB(t, "--records", "300", "--size", "3KiB,2KiB")
			keys := lmdbtest.Read(t, dir, false)
			if !lock {
				if err := os.Remove(filepath.Join(dir, "lock.mdb")); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			const epochs = 800
			c, read, stdoutPath := commandOut(ctx, t, baseEnv(), lmdbioBin, "digest", "--mode", mode, "--cache", cache,
				"--epochs", strconv.Itoa(epochs), dir)
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				if b, _ := os.ReadFile(stdoutPath); bytes.Contains(b, []byte("\n")) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("no epoch was read in 20 s")
				}
			}
			// Twelve commits, each rewriting half of the records with
			// values of new sizes: freed pages are reused from the third on.
			var spec lmdbtest.Spec
			for txn := range 12 {
				var tx lmdbtest.Txn
				for i, e := range keys {
					if i%2 == txn%2 {
						tx.Puts = append(tx.Puts, lmdbtest.KV{Key: e.Key, Value: bytes.Repeat([]byte{byte(txn)}, 100+(i*7+txn*500)%3000)})
					}
				}
				spec.Txns = append(spec.Txns, tx)
			}
			lmdbtest.Write(t, dir, spec)
			if b, _ := os.ReadFile(stdoutPath); lock && len(lines(string(b))) == epochs {
				t.Fatal("digest ended before the writer did: the test shows nothing (raise epochs)")
			}
			err := c.Wait()
			stdout, stderr := read()
			r := result{args: []string{"digest"}, stdout: stdout, stderr: stderr, code: exitStatus(c, err), timedOut: ctx.Err() != nil}
			for i, l := range lines(stdout) {
				if want := fmt.Sprintf("epoch=%d %s", i, want); l != want {
					t.Fatalf("epoch %d: %q, want %q", i, l, want)
				}
			}
			if lock {
				if r.code != 0 || len(lines(stdout)) != epochs {
					t.Errorf("with the snapshot held, want every epoch and status 0:\n%s", r)
				}
				return
			}
			if r.code == 0 && len(lines(stdout)) == epochs && mode == "default" && cache == "auto" {
				return // every epoch the snapshot's bytes, from the node cache
			}
			checkOneLineError(t, r, 1, "lmdbio: "+dir+": ")
			if !strings.Contains(stderr, "the database changed during the run") {
				t.Errorf("the error does not say the database changed:\n%s", r)
			}
		})
	}
}
