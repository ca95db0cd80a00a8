package lmdbfmt

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDataPath(t *testing.T) {
	root := t.TempDir()
	env := filepath.Join(root, "env")
	emptyDir := filepath.Join(root, "emptydir")
	file := filepath.Join(root, "single.mdb")
	for _, d := range []string{env, emptyDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(env, "data.mdb"), file} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
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
		{in: "/dev/null", errText: "neither a directory nor a regular file"},
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
