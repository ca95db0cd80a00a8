package lmdbfmt

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestDataPath(t *testing.T) {
	root := t.TempDir()
	env := filepath.Join(root, "env")
	emptyDir := filepath.Join(root, "emptydir")
	dirData := filepath.Join(root, "dirdata")
	fifoData := filepath.Join(root, "fifodata")
	file := filepath.Join(root, "single.mdb")
	fifo := filepath.Join(root, "fifo.mdb")
	for _, d := range []string{env, emptyDir, dirData, filepath.Join(dirData, "data.mdb"), fifoData} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(env, "data.mdb"), file} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{fifo, filepath.Join(fifoData, "data.mdb")} {
		if err := unix.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		in, want string
		errIs    error
		errText  string
	}{
		{in: env, want: filepath.Join(env, "data.mdb")},
		{in: file, want: file},
		{in: emptyDir, errIs: fs.ErrNotExist, errText: "no data.mdb in directory"},
		{in: filepath.Join(root, "missing"), errIs: fs.ErrNotExist},
		{in: "/dev/null", errIs: ErrNotRegular, errText: "/dev/null is a character device"},
		{in: fifo, errIs: ErrNotRegular, errText: "is a named pipe"},
		{in: fifoData, errIs: ErrNotRegular, errText: "data.mdb is a named pipe"},
		{in: dirData, errIs: ErrNotRegular, errText: "data.mdb is a directory"},
	}
	for _, tc := range tests {
		got, err := DataPath(tc.in)
		if tc.errIs == nil && tc.errText == "" {
			if err != nil || got != tc.want {
				t.Errorf("DataPath(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("DataPath(%s) = %q, want an error", tc.in, got)
			continue
		}
		if tc.errIs != nil && !errors.Is(err, tc.errIs) {
			t.Errorf("DataPath(%s) error %v, want %v", tc.in, err, tc.errIs)
		}
		if !strings.Contains(err.Error(), tc.errText) {
			t.Errorf("DataPath(%s) error %q, want it to say %q", tc.in, err, tc.errText)
		}
	}
}

// TestOpenRegular: OpenRegular is package regular's Open (tested there)
// with this package's prefix on its errors.
func TestOpenRegular(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "data.mdb")
	if err := os.WriteFile(file, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, st, err := OpenRegular(file)
	if err != nil || st.Size() != 10 {
		t.Fatalf("OpenRegular(regular file) = %v, %v", st, err)
	}
	f.Close()
	for path, is := range map[string]error{root: ErrNotRegular, filepath.Join(root, "missing"): fs.ErrNotExist} {
		_, _, err := OpenRegular(path)
		if !errors.Is(err, is) || !strings.HasPrefix(err.Error(), "lmdbfmt: ") || !strings.Contains(err.Error(), path) {
			t.Errorf("OpenRegular(%s) = %v, want an error with the package prefix that wraps %v", path, err, is)
		}
	}
}
