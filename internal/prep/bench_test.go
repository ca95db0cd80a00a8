package prep

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/lmdbio/lmdbio/internal/gen"
)

// benchJPEGs returns the benchmark's images as encoded Datums: the *.jpg
// files of $LMDBIO_PREP_JPEGS (bench/prep/run.sh puts crops of real
// photographs there, so that torchvision is timed on the same files), else
// 32 of gen's synthetic photographs of ImageNet sizes.
func benchJPEGs(b *testing.B) (values [][]byte, meanBytes int64) {
	var files [][]byte
	if dir := os.Getenv("LMDBIO_PREP_JPEGS"); dir != "" {
		names, err := filepath.Glob(filepath.Join(dir, "*.jpg"))
		if err != nil || len(names) == 0 {
			b.Fatalf("LMDBIO_PREP_JPEGS=%s: no *.jpg files", dir)
		}
		sort.Strings(names)
		for _, n := range names {
			f, err := os.ReadFile(n)
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, f)
		}
	} else {
		for i := range 32 {
			files = append(files, gen.Photo(1, i))
		}
	}
	var total int64
	for _, f := range files {
		values = append(values, encoded(f))
		total += int64(len(f))
	}
	return values, total / int64(len(files))
}

// BenchmarkPipeline times pipelines on ImageNet-sized JPEGs: per core
// (cores=1, one goroutine) and on every core (cores=N, one worker per
// goroutine), reporting samples/s; SetBytes is the mean JPEG size, so MB/s
// is the compressed input rate.
func BenchmarkPipeline(b *testing.B) {
	values, mean := benchJPEGs(b)
	specs := []struct{ name, spec string }{
		{"train", "decode,random_resized_crop:224,flip,normalize:imagenet,chw,float16"},
		{"train-uint8", "decode,random_resized_crop:224,flip"},
		{"val", "decode,resize:256,center_crop:224,normalize:imagenet,chw,float16"},
		{"decode", "decode"},
	}
	for _, sp := range specs {
		for _, full := range []bool{false, true} {
			p := mustParse(b, sp.spec)
			p.FullDecode = full
			for _, cores := range slices.Compact([]int{1, runtime.GOMAXPROCS(0)}) {
				name := "steps=" + sp.name + "/scaled=" + strconv.FormatBool(!full) + "/cores=" + strconv.Itoa(cores)
				b.Run(name, func(b *testing.B) { benchPipeline(b, p, values, mean, cores) })
			}
		}
	}
}

func benchPipeline(b *testing.B, p *Pipeline, values [][]byte, mean int64, cores int) {
	b.SetBytes(mean)
	var next atomic.Int64
	work := func() {
		w, err := p.NewWorker()
		if err != nil {
			b.Error(err)
			return
		}
		defer w.Close()
		dst := make([]byte, 8<<20)
		for {
			i := next.Add(1) - 1
			if i >= int64(b.N) {
				return
			}
			if _, err := w.Datum(values[i%int64(len(values))], Sample{Seed: 1, Record: i}, dst); err != nil {
				b.Error(err)
				return
			}
		}
	}
	b.ResetTimer()
	done := make(chan struct{})
	for range cores {
		go func() { work(); done <- struct{}{} }()
	}
	for range cores {
		<-done
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/float64(cores), "samples/s/core")
}
