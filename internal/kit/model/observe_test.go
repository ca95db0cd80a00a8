package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/kit/schema"
)

const resultLine = `{"type":"result","round":1,"mode":"lmdb","ranks":8,"nodes":2,"ranks_per_node":4,"cache":"cold",` +
	`"consumer":"sha256","workload":"none","batch":64,"epochs":2,"compute_s_per_batch":0,"direct":false,"stagger":4,` +
	`"io_depth":4,"window_bytes":67108864,"max_span_bytes":16777216,"samples":40000,"bytes":4400000000,"seconds":12.5}`

func TestReadObservations(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"limit","cache":"cold","mb_per_s":1000}`,
		resultLine,
		``,
		strings.Replace(resultLine, `"cold"`, `"warm"`, 1),
		`{"type":"result","mode":"default","ranks":4,"nodes":1,"cache":"cold","consumer":"touch","batch":64,"samples":1,"bytes":1,"seconds":1}`,
		`{"type":"peer","peer":"caffe","cache":"cold"}`,
	}, "\n")
	got, err := ReadObservations(strings.NewReader(in), "run.jsonl", 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Observations) != 1 {
		t.Fatalf("%d observations: %+v", len(got.Observations), got)
	}
	o := got.Observations[0]
	want := Config{Contender: Caffe, Nodes: 2, RanksPerNode: 4,
		Workload: Workload{Bytes: 2.2e9, Records: 20000, Batch: 64, Epochs: 2, Consumer: "sha256", WalkFraction: 0.5},
		Loader:   Loader{Stagger: 4, IODepth: 4, Window: 64 << 20, MaxSpan: 16 << 20}}
	if o.Config != want || o.Seconds != 12.5 || o.Source != "run.jsonl:2" {
		t.Errorf("observation %+v\nwant %+v", o, want)
	}
	skipped := 0
	for _, n := range got.Skipped {
		skipped += n
	}
	if skipped != 4 {
		t.Errorf("skipped %v, want 4 lines", got.Skipped)
	}
}

func TestReadObservationsErrors(t *testing.T) {
	for _, bad := range []string{
		`{"type":"result"`,
		strings.Replace(resultLine, `"lmdb"`, `"fast"`, 1),
		strings.Replace(resultLine, `"seconds":12.5`, `"seconds":0`, 1),
		strings.Replace(resultLine, `"nodes":2`, `"nodes":0`, 1),
		strings.Replace(resultLine, `"sha256"`, `"md5"`, 1),
		strings.Replace(resultLine, `"batch":64`, `"batch":0`, 1),
		strings.Replace(resultLine, `"samples":40000`, `"samples":0`, 1),
	} {
		if _, err := ReadObservations(strings.NewReader(bad), "x", 0); !errors.Is(err, ErrInput) {
			t.Errorf("%.60s...: err = %v, want ErrInput", bad, err)
		}
	}
}

// TestBenchLineRoundTrip: synthetic observations written as bench lines
// read back as the same observations, marked synthetic.
func TestBenchLineRoundTrip(t *testing.T) {
	obs := Synthesize(emulated(), testDesign([]int{2})[:20], 0.05, 9)
	var buf bytes.Buffer
	for _, o := range obs {
		buf.Write(BenchLine(o))
		buf.WriteByte('\n')
	}
	got, err := ReadObservations(&buf, "synth", obs[0].WalkFraction)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Observations) != len(obs) {
		t.Fatalf("read %d of %d", len(got.Observations), len(obs))
	}
	for i, o := range got.Observations {
		if o.Config != obs[i].Config || o.Seconds != obs[i].Seconds || !o.Synthetic {
			t.Errorf("line %d: %+v\nwant %+v", i, o, obs[i])
		}
	}
}

func FuzzReadObservations(f *testing.F) {
	f.Add([]byte(resultLine))
	f.Add([]byte(`{"type":"result","cache":"cold","window_bytes":1}`))
	f.Add([]byte("{\n}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ReadObservations(bytes.NewReader(b), "fuzz", 1)
		if err != nil {
			return
		}
		for _, o := range got.Observations {
			if err := o.Validate(); err != nil || !(o.Seconds > 0) {
				t.Fatalf("accepted an observation the model cannot use: %+v (%v)", o, err)
			}
			_ = Predict(Lustre().Params, o.Config)
		}
	})
}

// TestBenchLineSchema: the result lines BenchLine writes are bench result
// lines: each decodes into schema.Result with no field it does not declare.
func TestBenchLineSchema(t *testing.T) {
	for _, o := range Synthesize(emulated(), testDesign([]int{2})[:20], 0.05, 9) {
		line := BenchLine(o)
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var r schema.Result
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if r.Type != schema.TypeResult || !r.Synthetic || r.Nodes != o.Nodes || float64(r.WindowBytes) != o.Window {
			t.Errorf("%s decoded as %+v", line, r)
		}
	}
}
