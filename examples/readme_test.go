package examples

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/gen"
)

// TestReadmeGoExample builds the README's Go example as it stands and runs
// it on one rank and, when mpirun is there, on 4 ranks as 2 nodes: it must
// read the dataset's 512 records in each of its 2 epochs.
func TestReadmeGoExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src := goBlock(t, string(readme))
	// Inside the module (for its imports), in a directory go's ./... skips.
	dir, err := os.MkdirTemp(".", ".readme-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(t.TempDir(), "train")
	if out, err := exec.Command("go", "build", "-o", prog, file).CombinedOutput(); err != nil {
		t.Fatalf("the README's Go example does not build: %v\n%s", err, out)
	}
	data := filepath.Join(t.TempDir(), "train_lmdb")
	if _, err := gen.Write(data, gen.Options{Records: 512, MeanSize: 1024, StdDev: 100, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
		"OMPI_MCA_btl_vader_single_copy_mechanism=none", "LMDBIO_CACHE_DIR="+t.TempDir())
	run := func(name string, args ...string) string {
		c := exec.Command(name, args...)
		c.Env = env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	checkCounts(t, run(prog, data), 1, 2*512)
	if mpirun, err := exec.LookPath("mpirun"); err == nil {
		out := run(mpirun, "--oversubscribe", "-np", "4", "-x", "LMDBIO_RANKS_PER_NODE=2", prog, data)
		checkCounts(t, out, 4, 2*512)
	}
}

// goBlock returns the first ```go block of the README's "Go API" section.
func goBlock(t *testing.T, readme string) string {
	_, section, ok := strings.Cut(readme, "\n## Go API\n")
	_, block, ok2 := strings.Cut(section, "\n```go\n")
	block, _, ok3 := strings.Cut(block, "\n```\n")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README.md has no ```go block under ## Go API")
	}
	return block + "\n"
}

var countLine = regexp.MustCompile(`rank (\d+): (\d+) records in 2 epochs`)

// checkCounts wants one line per rank whose counts add up to want.
func checkCounts(t *testing.T, out string, ranks, want int) {
	t.Helper()
	seen, total := map[string]bool{}, 0
	for _, m := range countLine.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		seen[m[1]], total = true, total+n
	}
	if len(seen) != ranks || total != want {
		t.Errorf("%d ranks reported %d records, want %d ranks and %d:\n%s", len(seen), total, ranks, want, bytes.TrimSpace([]byte(out)))
	}
}
