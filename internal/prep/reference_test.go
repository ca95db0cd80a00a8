package prep

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/lmdbio/lmdbio/internal/datum"
	"github.com/lmdbio/lmdbio/internal/gen"
)

// The reference tests compare prep with Pillow and torchvision, run by the
// Debian interpreter on crops of scikit-learn's two sample photographs
// (testdata/reference.py). Without them the tests skip with a message.

const python = "/usr/bin/python3"

var photos struct {
	once sync.Once
	dir  string
	why  string // why the reference tests skip
}

// photoDir returns the directory of the test photographs, made once, or
// skips the test when they cannot be made.
func photoDir(t *testing.T) string {
	t.Helper()
	if ensurePhotos() == "" {
		t.Skip("reference tests skipped: " + photos.why)
	}
	return photos.dir
}

// ensurePhotos makes the test photographs once and returns their
// directory, "" when they cannot be made (photos.why says why).
func ensurePhotos() string {
	photos.once.Do(func() {
		if _, err := os.Stat(python); err != nil {
			photos.why = python + " is absent"
			return
		}
		check := exec.Command(python, "-c", "import PIL, torch, torchvision, sklearn.datasets")
		if out, err := check.CombinedOutput(); err != nil {
			photos.why = "Pillow, torchvision or scikit-learn missing (scripts/deps.sh --test installs them): " + lastLine(out)
			return
		}
		dir, err := os.MkdirTemp("", "prep-photos-")
		if err != nil {
			photos.why = err.Error()
			return
		}
		if out, err := exec.Command(python, "testdata/reference.py", "photos", dir).CombinedOutput(); err != nil {
			photos.why = "making the test photographs failed: " + lastLine(out)
			os.RemoveAll(dir)
			return
		}
		// Two of gen's synthetic photographs: JPEGs from Go's encoder, as
		// lmdbio gen --jpeg writes them.
		for i := range 2 {
			if err := os.WriteFile(filepath.Join(dir, "synth"+itoa(i)+".jpg"), gen.Photo(1, i), 0o644); err != nil {
				photos.why = err.Error()
				os.RemoveAll(dir)
				return
			}
		}
		photos.dir = dir
	})
	return photos.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if photos.dir != "" {
		os.RemoveAll(photos.dir)
	}
	os.Exit(code)
}

func lastLine(b []byte) string {
	s := string(b)
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	if i := lastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func lastIndexByte(s string, c byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// refJob is one job of reference.py: ops on the image in Src.
type refJob struct {
	Src    string     `json:"src"`
	Ops    [][]any    `json:"ops"`
	Tensor *refTensor `json:"tensor,omitempty"`
	Out    string     `json:"out"`
}

type refTensor struct {
	Mean  *[3]float64 `json:"mean"`
	Std   *[3]float64 `json:"std"`
	DType string      `json:"dtype"`
	CHW   bool        `json:"chw"`
}

// reference runs the jobs through reference.py and returns their outputs.
func reference(t *testing.T, jobs []refJob) [][]byte {
	t.Helper()
	dir := t.TempDir()
	for i := range jobs {
		jobs[i].Out = filepath.Join(dir, "out"+itoa(i))
	}
	b, err := json.Marshal(jobs)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "jobs.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(python, "testdata/reference.py", "jobs", file).CombinedOutput(); err != nil {
		t.Fatalf("reference.py: %v\n%s", err, out)
	}
	outs := make([][]byte, len(jobs))
	for i, j := range jobs {
		if outs[i], err = os.ReadFile(j.Out); err != nil {
			t.Fatal(err)
		}
	}
	return outs
}

func itoa(i int) string { return string(rune('a'+i/26)) + string(rune('a'+i%26)) }

// encodedDatum wraps an image file as convert_imageset --encoded does.
func encodedDatum(t testing.TB, path string, label int32) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := datum.Datum{Data: b, Label: label, Encoded: true}
	return d.Marshal(nil)
}

// prepare runs spec on the image file path as an encoded Datum.
func prepare(t testing.TB, p *Pipeline, path string, s Sample) ([]byte, Result) {
	t.Helper()
	w, err := p.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	dst := make([]byte, 8<<20)
	r, err := w.Datum(encodedDatum(t, path, 7), s, dst)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	if r.Label != 7 {
		t.Fatalf("%s: label %d, want 7", filepath.Base(path), r.Label)
	}
	return dst[:r.Bytes], r
}

func mustParse(t testing.TB, spec string) *Pipeline {
	t.Helper()
	p, err := Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// diff summarises how two uint8 images differ.
type diff struct {
	max   int
	mean  float64
	count int // bytes that differ
}

func compare(a, b []byte) diff {
	var d diff
	sum := 0
	for i := range a {
		v := int(a[i]) - int(b[i])
		if v < 0 {
			v = -v
		}
		if v > 0 {
			d.count++
		}
		d.max = max(d.max, v)
		sum += v
	}
	d.mean = float64(sum) / float64(max(len(a), 1))
	return d
}
