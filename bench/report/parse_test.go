package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/kit/schema"
)

func TestParseRecords(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"machine","cores":2,"kernel":"6.1"}`,
		``,
		`{"type":"result","round":1,"mode":"lmdb","ranks":4,"nodes":1,"cache":"cold","consumer":"touch","mb_per_s":900,"new_field":{"x":1}}`,
		`  {"type":"result","round":1,"storage":"pfsemu","mode":"default","ranks":4,"cache":"cold","mb_per_s":1300}  `,
		`{"type":"limit","round":1,"cache":"cold","direct":true,"mb_per_s":1100}`,
		`{"type":"peer","round":1,"peer":"caffe","ranks":4,"cache":"cold","mb_per_s":700}`,
		`{"type":"au-search","workload":"resnet50","threshold":0.9,"max_accelerators_per_node":12,"nodes":1}`,
		`{"type":"summary","anything":[1,2]}`,
		`{"type":"result","round":1,"mode":"default","contender":"default/global","epochs":3,"ranks":8,"cache":"cold","mb_per_s":1}`,
		`{"type":"epoch","kind":"mode","contender":"default/global","cache":"cold","ranks":8,"epoch":1,"storage_bytes":0}`,
		`{"type":"shuffle-quality","shuffle":"global","records":100,"same_batch_adjacent":0.1}`,
		`{"type":"fit","observations":3}`,
		`{"type":"residual","set":"held-out","contender":"caffe","nodes":8}`,
		`{"type":"prediction","contender":"default","nodes":4,"mb_per_s":10}`,
		`{"type":"something-new"}`,
	}, "\n")
	var ds Dataset
	if err := Parse(strings.NewReader(in), "in.jsonl", "", &ds); err != nil {
		t.Fatal(err)
	}
	if len(ds.Epochs) != 1 || len(ds.Qualities) != 1 || len(ds.Fits) != 1 || len(ds.Residuals) != 1 || len(ds.Predictions) != 1 {
		t.Errorf("counts: epochs %d qualities %d fits %d residuals %d predictions %d",
			len(ds.Epochs), len(ds.Qualities), len(ds.Fits), len(ds.Residuals), len(ds.Predictions))
	}
	// A contender is named by its contender field where the line has one.
	if r := ds.Results[2]; r.Mode != "default/global" || r.Epochs != 3 {
		t.Errorf("result 2 = %+v", r)
	}
	ds.Results = ds.Results[:2]
	if len(ds.Results) != 2 || len(ds.Limits) != 1 || len(ds.Peers) != 1 || len(ds.AUSearches) != 1 || len(ds.Machines) != 1 {
		t.Fatalf("counts: results %d limits %d peers %d au %d machines %d",
			len(ds.Results), len(ds.Limits), len(ds.Peers), len(ds.AUSearches), len(ds.Machines))
	}
	r := ds.Results[0]
	if r.Mode != "lmdb" || r.Ranks != 4 || r.Cache != "cold" || r.Consumer != "touch" || r.MBPerS != 900 || r.Storage != "" {
		t.Errorf("result 0 = %+v", r)
	}
	if ds.Results[1].Storage != "pfsemu" {
		t.Errorf("storage field not kept: %q", ds.Results[1].Storage)
	}
	if !ds.Limits[0].Direct || ds.Limits[0].MBPerS != 1100 {
		t.Errorf("limit = %+v", ds.Limits[0])
	}
	if a := ds.AUSearches[0]; a.MaxAcceleratorsPerNode != 12 || a.Threshold != 0.9 {
		t.Errorf("au-search = %+v", a)
	}
	if ds.Machines[0].Fields["cores"] != 2.0 {
		t.Errorf("machine = %+v", ds.Machines[0])
	}
}

func TestParseLabelOverridesStorage(t *testing.T) {
	in := `{"type":"result","storage":"pfsemu","mode":"lmdb","ranks":1,"cache":"warm","mb_per_s":1}
{"type":"limit","cache":"warm","mb_per_s":2}
{"type":"peer","peer":"caffe","ranks":1,"cache":"warm","mb_per_s":3}
{"type":"au-search","workload":"unet3d"}
{"type":"machine","storage":"x","cores":1}`
	var ds Dataset
	if err := Parse(strings.NewReader(in), "in", "local", &ds); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{ds.Results[0].Storage, ds.Limits[0].Storage, ds.Peers[0].Storage, ds.AUSearches[0].Storage, ds.Machines[0].Storage} {
		if s != "local" {
			t.Errorf("storage %q, want the label", s)
		}
	}
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	good := `{"type":"limit","cache":"cold","mb_per_s":1}`
	tests := []struct {
		name, bad, want string
	}{
		{"not json", `mode=lmdb ranks=4`, "not a JSON object"},
		{"truncated", `{"type":"result","mode":"lm`, "bad JSON"},
		{"no type", `{"mode":"lmdb"}`, `no "type"`},
		{"wrong field type", `{"type":"result","mode":"lmdb","ranks":"four","cache":"cold"}`, "bad field"},
		{"no mode", `{"type":"result","ranks":4,"cache":"cold"}`, `no "mode"`},
		{"zero ranks", `{"type":"result","mode":"lmdb","ranks":0,"cache":"cold"}`, `"ranks" is 0`},
		{"no cache", `{"type":"result","mode":"lmdb","ranks":1}`, `no "cache"`},
		{"negative rate", `{"type":"result","mode":"lmdb","ranks":1,"cache":"cold","mb_per_s":-1}`, "negative"},
		{"huge rate", `{"type":"result","mode":"lmdb","ranks":1,"cache":"cold","mb_per_s":1e300}`, "implausible"},
		{"limit without cache", `{"type":"limit","mb_per_s":1}`, "limit"},
		{"peer without ranks", `{"type":"peer","peer":"caffe","cache":"cold"}`, "peer"},
		{"au-search without workload", `{"type":"au-search"}`, "au-search"},
		{"epoch without contender", `{"type":"epoch","cache":"cold","ranks":1}`, "epoch"},
		{"epoch with a negative figure", `{"type":"epoch","contender":"default","cache":"cold","ranks":1,"storage_bytes":-1}`, "negative"},
		{"shuffle-quality without shuffle", `{"type":"shuffle-quality","records":10}`, "shuffle-quality"},
		{"array", `[1,2]`, "not a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := good + "\n\n" + tc.bad + "\n" + good + "\n"
			var ds Dataset
			err := Parse(strings.NewReader(in), "runs/a.jsonl", "", &ds)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrBadInput) {
				t.Errorf("%v: not ErrBadInput", err)
			}
			if !strings.HasPrefix(err.Error(), "runs/a.jsonl:3: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want prefix runs/a.jsonl:3: and %q", err, tc.want)
			}
		})
	}
}

func TestParseLineTooLong(t *testing.T) {
	in := `{"type":"summary","x":"` + strings.Repeat("a", maxLine) + `"}`
	var ds Dataset
	err := Parse(strings.NewReader(in), "big", "", &ds)
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "big:1:") {
		t.Fatalf("err = %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"type":"result","round":1,"mode":"lmdb","ranks":4,"nodes":1,"cache":"cold","mb_per_s":900}`,
		`{"type":"limit","cache":"cold","direct":true,"mb_per_s":1100}`,
		`{"type":"peer","peer":"caffe","ranks":4,"cache":"cold","mb_per_s":700}`,
		`{"type":"au-search","workload":"resnet50","threshold":0.9}`,
		`{"type":"machine","cores":2,"memory_bytes":8589934592}`,
		"{\"type\":\"result\"}\n{",
		`{"type":"result","mode":"x","ranks":1e309,"cache":"c"}`,
		`{"type":"result","mode":"x","ranks":1,"cache":"c","mb_per_s":1.7e308}`,
		"{\"type\":\"peer\",\"peer\":\"p\",\"ranks\":1,\"cache\":\"c\",\"mb_per_s\":1e11,\"first_batch_s_max\":1e308}",
		"",
		"\x00\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var ds Dataset
		if err := Parse(strings.NewReader(in), "fuzz", "", &ds); err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("error not ErrBadInput: %v", err)
			}
			return
		}
		for _, r := range ds.Results {
			if r.Mode == "" || r.Ranks <= 0 || r.Cache == "" || r.MBPerS < 0 {
				t.Fatalf("accepted result %+v", r)
			}
		}
		// Whatever parses must render without panicking.
		Markdown(Build(&ds, Options{}))
		if _, err := Figures(Build(&ds, Options{})); err != nil {
			t.Fatalf("figures: %v", err)
		}
	})
}

func TestParseOlderLinesAndSynthetic(t *testing.T) {
	in := `{"type":"peer","peer":"caffe","ranks":1,"cache":"cold","mb_per_s":3}
{"type":"limit","cache":"cold","direct":true,"mb_per_s":2}
{"type":"peer","peer":"caffe","consumer":"touch","ranks":1,"cache":"cold","mb_per_s":3}
{"type":"limit","cache":"cold","probe":"direct:4x2:16MiB","direct":true,"mb_per_s":2}
{"type":"limit","cache":"cold","probe":"direct:1x8:4MiB","direct":true,"hosts":4,"mb_per_s":2}`
	var ds Dataset
	if err := Parse(strings.NewReader(in), "in", "", &ds); err != nil {
		t.Fatal(err)
	}
	if ds.Peers[0].Consumer != "sha256" || ds.Peers[1].Consumer != "touch" {
		t.Errorf("peer consumers %q %q", ds.Peers[0].Consumer, ds.Peers[1].Consumer)
	}
	if ds.Limits[0].Probe != "direct:1x1:16MiB" || ds.Limits[1].Probe != "direct:4x2:16MiB" {
		t.Errorf("limit probes %q %q", ds.Limits[0].Probe, ds.Limits[1].Probe)
	}
	if ds.Limits[2].Probe != "direct:1x8:4MiB on 4 hosts" {
		t.Errorf("a probe through 4 hosts' clients is shown as %q", ds.Limits[2].Probe)
	}
	if len(ds.Notes) != 2 {
		t.Errorf("notes %q: want one per kind of older line", ds.Notes)
	}
	for _, line := range []string{
		`{"type":"result","mode":"lmdb","ranks":1,"cache":"cold","mb_per_s":1,"synthetic":true}`,
		`{"type":"peer","peer":"caffe","ranks":1,"cache":"cold","mb_per_s":1,"synthetic":true}`,
	} {
		var ds Dataset
		err := Parse(strings.NewReader(line), "in", "", &ds)
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "synthetic") {
			t.Errorf("%s: err = %v, want a refusal", line, err)
		}
	}
}

// TestParsesWhatTheBenchWrites: a line marshalled from the bench's own types
// comes back whole, the report's labels added.
func TestParsesWhatTheBenchWrites(t *testing.T) {
	res := schema.Result{Type: schema.TypeResult, Round: 2, Mode: "default", Contender: "default/global", Shuffle: "global",
		Ranks: 8, Nodes: 2, RanksPerNode: 4, Cache: "cold", Consumer: "touch", Workload: "none", Batch: 64, Epochs: 2,
		Samples: 4000, Bytes: 4e8, Seconds: 2, SamplesPerS: 2000, MBPerS: 200, FirstBatchMax: 0.5, ShmBytes: 1 << 20, StallMean: 0.1}
	lim := schema.Limit{Type: schema.TypeLimit, Round: 2, Cache: "cold", Probe: "direct:4x2:16MiB", Direct: true, Streams: 4,
		Depth: 2, RequestBytes: 16 << 20, Hosts: 1, Bytes: 4e8, Seconds: 1, MBPerS: 400}
	var in bytes.Buffer
	for _, v := range []any{res, lim} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(b, '\n'))
	}
	var ds Dataset
	if err := Parse(&in, "run.jsonl", "local", &ds); err != nil {
		t.Fatal(err)
	}
	want := res
	want.Mode = res.Contender // the report names a result by its contender
	if len(ds.Results) != 1 || ds.Results[0].resultLine != want || ds.Results[0].Storage != "local" || ds.Results[0].Run != "run.jsonl" {
		t.Errorf("results %+v\nwant %+v", ds.Results, want)
	}
	if len(ds.Limits) != 1 || ds.Limits[0].limitLine != lim || ds.Limits[0].Storage != "local" {
		t.Errorf("limits %+v\nwant %+v", ds.Limits, lim)
	}
}
