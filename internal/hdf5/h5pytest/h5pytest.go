// Package h5pytest writes HDF5 test files with h5py and computes, in
// Python, the digest lmdbio must agree with. Tests of every package that
// reads HDF5 use it, so their files come from the reference implementation
// rather than from the code under test.
//
// The digest is the contract of `lmdbio digest`: the sum modulo 2^64 over
// all rows of the little-endian uint64 made of the first 8 bytes of
// SHA-256(key ‖ value), key = the row index as 8 bytes little-endian,
// value = the row's raw bytes in the file's element type and byte order.
package h5pytest

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Python is the interpreter the tests run: Debian's, which has h5py and
// numpy as packages (python3-h5py).
const Python = "/usr/bin/python3"

var (
	checkOnce sync.Once
	missing   string
)

// Available says whether h5py can be imported.
func Available() bool {
	checkOnce.Do(func() {
		if out, err := exec.Command(Python, "-c", "import h5py, numpy").CombinedOutput(); err != nil {
			missing = strings.TrimSpace(string(out))
			if missing == "" {
				missing = err.Error()
			}
		}
	})
	return missing == ""
}

// Require skips the test when h5py cannot be imported.
func Require(t testing.TB) {
	t.Helper()
	if !Available() {
		t.Skipf("h5py, which writes the test files, is not available (%s); scripts/deps.sh installs python3-h5py", missing)
	}
}

// prelude is run before every script: the modules and the argument list.
const prelude = `import sys, hashlib
import numpy as np
import h5py
args = sys.argv[1:]
`

// Run runs script with h5py and numpy imported as h5py and np and the
// arguments in args, and returns what it printed. A failing script fails
// the test.
func Run(t testing.TB, script string, args ...string) string {
	t.Helper()
	Require(t)
	cmd := exec.Command(Python, append([]string{"-c", prelude + script}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// Write runs script with f, an h5py.File created at path, and closes it.
func Write(t testing.TB, path, script string) {
	t.Helper()
	WriteAll(t, []File{{path, script}})
}

// File is a file to write: Script runs with f, an h5py.File created at
// Path, and args, the list [Path].
type File struct {
	Path, Script string
}

// writeScript runs the scripts its arguments name in turn (pairs of a path
// and a script), each in a namespace of its own.
const writeScript = `
for path, script in zip(args[0::2], args[1::2]):
    f = h5py.File(path, 'w')
    exec(script, {'np': np, 'h5py': h5py, 'f': f, 'args': [path]})
    f.close()
`

// WriteAll writes files in one Python process: starting the interpreter
// with numpy and h5py takes longer than writing a small file.
func WriteAll(t testing.TB, files []File) {
	t.Helper()
	var args []string
	for _, f := range files {
		args = append(args, f.Path, f.Script)
	}
	Run(t, writeScript, args...)
}

// digestScript hashes every row of the datasets its arguments name (pairs
// of a path and a dataset), one line each: h5py hands each row as a numpy
// array in the file's own dtype (byte order included), so tobytes() is the
// row's bytes as stored.
const digestScript = `
for path, name in zip(args[0::2], args[1::2]):
    d = h5py.File(path, 'r')[name]
    total, nbytes = 0, 0
    step = max(1, (8 << 20) // max(1, d.dtype.itemsize * int(np.prod(d.shape[1:]))))
    for start in range(0, d.shape[0], step):
        rows = d[start:start + step]
        for k in range(rows.shape[0]):
            v = rows[k].tobytes()
            h = hashlib.sha256((start + k).to_bytes(8, 'little') + v).digest()
            total = (total + int.from_bytes(h[:8], 'little')) % (1 << 64)
            nbytes += len(v)
    print(d.shape[0], nbytes, '%016x' % total)
`

// Sum is what a digest covered.
type Sum struct {
	Records int
	Bytes   int64
	Digest  uint64
}

// Digest computes the digest of dataset name in the file at path.
func Digest(t testing.TB, path, name string) Sum {
	t.Helper()
	return DigestAll(t, []Dataset{{path, name}})[0]
}

// Dataset names a dataset of a file.
type Dataset struct {
	Path, Name string
}

// DigestAll computes the digests of datasets in one Python process.
func DigestAll(t testing.TB, datasets []Dataset) []Sum {
	t.Helper()
	var args []string
	for _, d := range datasets {
		args = append(args, d.Path, d.Name)
	}
	lines := strings.Split(strings.TrimSpace(Run(t, digestScript, args...)), "\n")
	if len(lines) != len(datasets) {
		t.Fatalf("python printed %d digests for %d datasets", len(lines), len(datasets))
	}
	sums := make([]Sum, len(lines))
	for i, line := range lines {
		f := strings.Fields(line)
		var err1, err2, err3 error
		if len(f) == 3 {
			sums[i].Records, err1 = strconv.Atoi(f[0])
			sums[i].Bytes, err2 = strconv.ParseInt(f[1], 10, 64)
			sums[i].Digest, err3 = strconv.ParseUint(f[2], 16, 64)
		}
		if len(f) != 3 || err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("python digest printed %q", line)
		}
	}
	return sums
}
