package cli

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// A command that finds out only when it comes to write its output that it
// cannot has done its work for nothing (a digest of hours that cannot save
// where it stopped) or leaves part of its output behind. These checks say
// so before any work, naming the flag (flag) that gave the path.

// CheckOutFile makes sure the file path can be written: it is not a
// directory, and it or the directory it goes in can be written.
func CheckOutFile(flag, path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return CheckOutDir(flag, path, filepath.Dir(path))
	case st.IsDir():
		return Usagef("%s %s: is a directory; name a file", flag, path)
	}
	if err := unix.Access(path, unix.W_OK); err != nil {
		return Usagef("%s %s: cannot write it: %v", flag, path, err)
	}
	return nil
}

// CheckOutDir makes sure dir, the directory that out (given with flag)
// names or goes in, exists or can be made, and can be written in.
func CheckOutDir(flag, out, dir string) error {
	at := NearestExisting(dir)
	st, err := os.Stat(at)
	switch {
	case err != nil:
		return nil // nothing to judge by: making it will say why
	case !st.IsDir() && at == filepath.Clean(out):
		return Usagef("%s %s: is a file; name a directory", flag, out)
	case !st.IsDir():
		return Usagef("%s %s: %s is not a directory", flag, out, at)
	}
	if err := unix.Access(at, unix.W_OK); err != nil {
		return Usagef("%s %s: cannot write in %s: %v", flag, out, at, err)
	}
	return nil
}

// NearestExisting is path, or the nearest of its parents that exists.
func NearestExisting(path string) string {
	p := filepath.Clean(path)
	for {
		if _, err := os.Stat(p); err == nil || p == filepath.Dir(p) {
			return p
		}
		p = filepath.Dir(p)
	}
}
