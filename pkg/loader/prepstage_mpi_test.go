package loader_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/datum"
	"github.com/lmdbio/lmdbio/internal/gen"
	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
	"github.com/lmdbio/lmdbio/internal/prep"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// photoSpec is a database of n encoded Datums holding synthetic photographs,
// labelled i%7; the value of record bad (if >= 0) is not an image.
func photoSpec(n, bad int) lmdbtest.Spec {
	var puts []lmdbtest.KV
	for i := range n {
		d := datum.Datum{Encoded: true, Data: gen.Photo(11, i), Label: int32(i % 7)}
		if i == bad {
			d.Data = []byte("this is not an image at all")
		}
		puts = append(puts, lmdbtest.KV{Key: []byte(fmt.Sprintf("img%05d", i)), Value: d.Marshal(nil)})
	}
	return lmdbtest.Spec{Txns: []lmdbtest.Txn{{Puts: puts}}}
}

// specFixture writes spec on rank 0 and returns the directory on every rank.
func specFixture(t *testing.T, name string, spec lmdbtest.Spec) string {
	t.Helper()
	var dir, skip, fail string
	if job.Rank == 0 {
		dir = filepath.Join(scratch, name)
		func() {
			defer func() {
				if r := recover(); r != nil {
					fail = fmt.Sprint(r)
				}
			}()
			if !lmdbtest.Available() {
				skip = "python3-lmdb, which writes the fixtures with liblmdb, is not installed"
				return
			}
			lmdbtest.Write(quietTB{}, dir, spec)
		}()
	}
	dir, skip, fail = string(share([]byte(dir))), string(share([]byte(skip))), string(share([]byte(fail)))
	if skip != "" {
		t.Skip(skip)
	}
	if fail != "" {
		t.Fatalf("fixture %s: %s", name, fail)
	}
	return dir
}

// prepDigest is the contract of lmdbio digest --prep for one sample: the
// first 8 bytes of sha256(key || output bytes).
func prepDigest(key, out []byte) int64 {
	h := sha256.New()
	h.Write(key)
	h.Write(out)
	return int64(binary.LittleEndian.Uint64(h.Sum(nil)))
}

const testPipeline = "decode,random_resized_crop:40,flip,normalize:imagenet,chw,float16"

// TestMPIPrep: every record of every epoch is prepped once, into the
// output a single prep.Worker gives for (seed, epoch, record), whatever the
// number of learners and nodes (1x4, 2x2 and 4x1 all compare to the same
// single-threaded result), and the label comes with it.
func TestMPIPrep(t *testing.T) {
	const n, epochs, seed = 29, 2, 5
	dir := specFixture(t, "photos", photoSpec(n, -1))
	l, err := loader.Open(dir, loader.Options{Topology: job, Batch: 3, Epochs: epochs, Shuffle: sampler.Global,
		Seed: seed, Remainder: assign.Keep, Prep: testPipeline, PrepThreads: 2, Prefetch: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var got []int64 // (epoch, record, digest, label) per sample
	for e := range epochs {
		for {
			b, err := l.Next(context.Background())
			if err == io.EOF {
				// The stage runs ahead of Next, but Epoch and State say
				// where the learner is.
				if st := l.State(); l.Epoch() != e+1 || st.Epoch != e+1 || st.GlobalBatches != 0 {
					t.Fatalf("after epoch %d: Epoch %d, State %d/%d", e, l.Epoch(), st.Epoch, st.GlobalBatches)
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if st := l.State(); l.Epoch() != e || st.Epoch != e && st.Epoch != e+1 {
				t.Fatalf("in epoch %d: Epoch %d, State epoch %d", e, l.Epoch(), st.Epoch)
			}
			if b.Shape[1] != 3 || b.Shape[2] != 40 || b.Shape[3] != 40 || b.DType != "float16" ||
				len(b.Images) != b.Shape[0]*3*40*40*2 || len(b.Classes) != b.Shape[0] || len(b.Keys) != b.Shape[0] {
				t.Fatalf("batch of shape %v %s, %d bytes, %d labels, %d keys", b.Shape, b.DType, len(b.Images), len(b.Classes), len(b.Keys))
			}
			if b.Epoch != e || b.Values != nil {
				t.Fatalf("batch of epoch %d in epoch %d, values %v", b.Epoch, e, b.Values != nil)
			}
			if b.Shape[0] == 0 {
				continue // with remainder keep, a learner may get an empty last batch
			}
			one := len(b.Images) / b.Shape[0]
			for i, r := range b.Records {
				got = append(got, int64(e), int64(r), prepDigest(b.Keys[i], b.Images[i*one:(i+1)*one]), b.Classes[i])
			}
		}
	}
	if _, err := l.Next(context.Background()); err != io.EOF {
		t.Fatalf("after the last epoch: %v, want io.EOF", err)
	}
	want := referencePrep(t, n, epochs, seed)
	seen := map[[2]int64]bool{}
	for _, all := range allgatherInts(got) {
		for i := 0; i+3 < len(all); i += 4 {
			k := [2]int64{all[i], all[i+1]}
			if seen[k] {
				t.Fatalf("epoch %d record %d prepped twice", k[0], k[1])
			}
			seen[k] = true
			if w := want[k]; all[i+2] != w[0] || all[i+3] != w[1] {
				t.Errorf("epoch %d record %d: digest %x label %d, want %x %d", k[0], k[1], all[i+2], all[i+3], w[0], w[1])
			}
		}
	}
	if len(seen) != n*epochs {
		t.Errorf("%d samples prepped, want %d", len(seen), n*epochs)
	}
}

// referencePrep preps every record of every epoch with one prep.Worker.
func referencePrep(t *testing.T, n, epochs int, seed uint64) map[[2]int64][2]int64 {
	p, err := prep.Parse(testPipeline)
	if err != nil {
		t.Fatal(err)
	}
	w, err := p.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	spec := photoSpec(n, -1)
	out := make([]byte, p.SampleBytes(40, 40))
	want := map[[2]int64][2]int64{}
	for e := range epochs {
		for r, kv := range spec.Txns[0].Puts {
			res, err := w.Datum(kv.Value, prep.Sample{Seed: seed, Epoch: e, Record: int64(r)}, out)
			if err != nil {
				t.Fatal(err)
			}
			want[[2]int64{int64(e), int64(r)}] = [2]int64{prepDigest(kv.Key, out), int64(res.Label)}
		}
	}
	return want
}

// TestMPIPrepBadRecord: a value that is not an image ends the run of the
// learners that meet it with an error naming its key, a runtime failure
// (exit status 1: the contract for bad samples found mid-run);
// the others end with an error or, when they got all their batches before
// the failure reached them, at the end of the epoch: nobody hangs or gets
// a black image.
func TestMPIPrepBadRecord(t *testing.T) {
	dir := specFixture(t, "photos-bad", photoSpec(24, 7)) // a round of 8 learners x batch 2 fits
	l, err := loader.Open(dir, loader.Options{Topology: job, Batch: 2, Prep: "decode,center_crop:32"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var failed error
	for failed == nil {
		_, err := l.Next(context.Background())
		if err == io.EOF {
			break
		}
		failed = err
	}
	named := failed != nil && strings.Contains(failed.Error(), `key "img00007"`) &&
		strings.Contains(failed.Error(), "record 7") && failure.KindOf(failed) == failure.Runtime
	flags := []int64{0, 0}
	if failed != nil {
		flags[0] = 1
	}
	if named {
		flags[1] = 1
	}
	var ended, namers int64
	for _, f := range allgatherInts(flags) {
		ended += f[0]
		namers += f[1]
	}
	if namers == 0 || failed != nil && !named && failure.KindOf(failed) != failure.Input && failure.KindOf(failed) != failure.Runtime {
		t.Errorf("%d of %d ranks failed, %d named the key; this rank: %v", ended, job.Size, namers, failed)
	}
}

// TestMPIPrepBadSpec: a pipeline that does not parse, or whose samples
// differ in size with a float output (decoded Datums hold uint8 pixels),
// fails Open on every rank as a bad option.
func TestMPIPrepBadSpec(t *testing.T) {
	dir := specFixture(t, "photos-spec", photoSpec(4, -1))
	for _, spec := range []string{"decode,bogus:3", "decode,center_crop:0", "decode,float32", "decode,center_crop:32,resize:16,float16"} {
		l, err := loader.Open(dir, loader.Options{Topology: job, Batch: 2, Prep: spec})
		if err == nil {
			l.Close()
			t.Errorf("prep %q opened", spec)
			continue
		}
		if !errors.Is(err, loader.ErrBadOption) || failure.KindOf(err) != failure.Argument || strings.Contains(err.Error(), "\n") {
			t.Errorf("prep %q: %v (kind %v), want one line, a bad option", spec, err, failure.KindOf(err))
		}
	}
}

// TestMPIPrepDatums: prep=decode turns every encoded Datum into a decoded
// one (3 channels of uint8, channel-major BGR, encoded false, the label
// kept) whose pixels are the pipeline's, as Caffe's raw path reads them.
func TestMPIPrepDatums(t *testing.T) {
	const n = 10
	dir := specFixture(t, "photos-datums", photoSpec(n, -1))
	l, err := loader.Open(dir, loader.Options{Topology: job, Batch: 2, Remainder: assign.Keep, Prep: "decode"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p, err := prep.Parse("decode")
	if err != nil {
		t.Fatal(err)
	}
	w, err := p.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	spec := photoSpec(n, -1)
	seen := int64(0)
	for {
		b, err := l.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.Images != nil || len(b.Values) != len(b.Keys) {
			t.Fatalf("a batch of %d values, %d keys, images %v", len(b.Values), len(b.Keys), b.Images != nil)
		}
		for i, v := range b.Values {
			d, err := datum.Unmarshal(v)
			if err != nil {
				t.Fatal(err)
			}
			r := b.Records[i]
			plane := int(d.Height * d.Width)
			if d.Encoded || d.Channels != 3 || d.Label != int32(r%7) || len(d.Data) != 3*plane {
				t.Fatalf("record %d: encoded %v, %dx%dx%d, label %d, %d bytes", r, d.Encoded, d.Channels, d.Height, d.Width, d.Label, len(d.Data))
			}
			want := make([]byte, 3*plane)
			if _, err := w.Datum(spec.Txns[0].Puts[r].Value, prep.Sample{Record: int64(r)}, want); err != nil {
				t.Fatal(err)
			}
			for k := range plane {
				if d.Data[k] != want[3*k+2] || d.Data[plane+k] != want[3*k+1] || d.Data[2*plane+k] != want[3*k] {
					t.Fatalf("record %d: pixel %d is not the decode's in BGR planes", r, k)
				}
			}
			seen++
		}
	}
	var total int64
	for _, c := range allgatherInts([]int64{seen}) {
		total += c[0]
	}
	if total != n {
		t.Errorf("%d decoded Datums, want %d", total, n)
	}
}

// TestMPIPrepResume: a run stopped after a few batches and resumed from its
// State preps the rest of its epochs into the same samples as a run that
// never stopped: every random choice comes from (seed, epoch, record).
func TestMPIPrepResume(t *testing.T) {
	const n, epochs, seed = 29, 2, 5
	dir := specFixture(t, "photos", photoSpec(n, -1))
	opt := loader.Options{Topology: job, Batch: 3, Epochs: epochs, Shuffle: sampler.Global, Seed: seed,
		Remainder: assign.Keep, Prep: testPipeline}
	var got []int64
	read := func(l *loader.Loader, stopAfter int) {
		for stopAfter != 0 {
			e := l.Epoch()
			if e >= epochs {
				return
			}
			b, err := l.Next(context.Background())
			if err == io.EOF {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			stopAfter--
			if b.Shape[0] == 0 {
				continue
			}
			one := len(b.Images) / b.Shape[0]
			for i, r := range b.Records {
				got = append(got, int64(e), int64(r), prepDigest(b.Keys[i], b.Images[i*one:(i+1)*one]), b.Classes[i])
			}
		}
	}
	l, err := loader.Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	read(l, 2)
	// Every rank takes its batches before any closes: the learners of a
	// node that close before the end stop the exchange for every node.
	if err := job.World.Barrier(); err != nil {
		t.Fatal(err)
	}
	st := l.State()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	opt.Resume = &st
	if l, err = loader.Open(dir, opt); err != nil {
		t.Fatal(err)
	}
	read(l, -1)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	want := referencePrep(t, n, epochs, seed)
	seen := map[[2]int64]bool{}
	for _, all := range allgatherInts(got) {
		for i := 0; i+3 < len(all); i += 4 {
			k := [2]int64{all[i], all[i+1]}
			if seen[k] {
				t.Fatalf("epoch %d record %d prepped twice", k[0], k[1])
			}
			seen[k] = true
			if w := want[k]; all[i+2] != w[0] || all[i+3] != w[1] {
				t.Errorf("epoch %d record %d after a resume: digest %x label %d, want %x %d", k[0], k[1], all[i+2], all[i+3], w[0], w[1])
			}
		}
	}
	if len(seen) != n*epochs {
		t.Errorf("%d samples prepped across the resume, want %d", len(seen), n*epochs)
	}
}
