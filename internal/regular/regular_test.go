package regular

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestOpen: only regular files open, and nothing blocks: a FIFO with no
// writer would hang a plain open forever. Errors name the path and carry
// no package prefix.
func TestOpen(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "data.mdb")
	if err := os.WriteFile(file, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(root, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "zero")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	f, st, err := Open(file)
	if err != nil || st.Size() != 10 {
		t.Fatalf("Open(regular file) = %v, %v", st, err)
	}
	if fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Errorf("file flags 0x%x, %v: want O_NONBLOCK cleared", fl, err)
	}
	buf := make([]byte, 4)
	if _, err := f.ReadAt(buf, 6); err != nil || string(buf) != "6789" {
		t.Errorf("ReadAt = %q, %v", buf, err)
	}
	f.Close()
	tests := []struct {
		path, text string
		is         error
	}{
		{fifo, fifo + " is a named pipe (FIFO): not a regular file", ErrNotRegular},
		{link, link + " is a character device: not a regular file", ErrNotRegular},
		{"/dev/zero", "/dev/zero is a character device: not a regular file", ErrNotRegular},
		{root, root + " is a directory: not a regular file", ErrNotRegular},
		{filepath.Join(root, "missing"), "open " + filepath.Join(root, "missing") + ": no such file or directory", fs.ErrNotExist},
	}
	for _, tc := range tests {
		done := make(chan error, 1)
		go func() {
			f, _, err := Open(tc.path)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, tc.is) || err.Error() != tc.text {
				t.Errorf("Open(%s) = %v, want %q wrapping %v", tc.path, err, tc.text, tc.is)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Open(%s) blocked", tc.path)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		mode fs.FileMode
		want string
	}{
		{0o644, ""},
		{fs.ModeDir, "p is a directory: not a regular file"},
		{fs.ModeDevice, "p is a block device: not a regular file"},
		{fs.ModeDevice | fs.ModeCharDevice, "p is a character device: not a regular file"},
		{fs.ModeSocket, "p is a socket: not a regular file"},
		{fs.ModeIrregular, "p: not a regular file"},
	} {
		err := Check("p", tc.mode)
		if tc.want == "" {
			if err != nil {
				t.Errorf("Check(%v) = %v, want nil", tc.mode, err)
			}
			continue
		}
		if !errors.Is(err, ErrNotRegular) || err.Error() != tc.want {
			t.Errorf("Check(%v) = %v, want %q", tc.mode, err, tc.want)
		}
	}
}
