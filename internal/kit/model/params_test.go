package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestLustreParamsAreValidAndSourced(t *testing.T) {
	f := Lustre()
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(f.Sources) == 0 || len(f.Assumptions) == 0 {
		t.Error("the Lustre-like set states no sources or assumptions")
	}
	w, notes := CIFARWorkload()
	if err := (Config{Contender: STAG, Nodes: 1, RanksPerNode: 1, Workload: w, Loader: DefaultLoader}).Validate(); err != nil || len(notes) == 0 {
		t.Errorf("CIFAR workload: %v, %d notes", err, len(notes))
	}
}

func TestParamsRoundTrip(t *testing.T) {
	f := Lustre()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadParams(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if got.Params != f.Params || got.Name != f.Name || len(got.Sources) != len(f.Sources) {
		t.Errorf("round trip: %+v", got)
	}
	for _, name := range ParamNames() {
		if !strings.Contains(string(b), `"`+name+`"`) {
			t.Errorf("%s is not written under its name", name)
		}
	}
}

func TestReadParamsRejects(t *testing.T) {
	good, _ := json.Marshal(Lustre())
	cases := map[string]string{
		"unknown field":     strings.Replace(string(good), `"servers"`, `"serverz"`, 1),
		"negative rate":     strings.Replace(string(good), `"mem_copy":5000000000`, `"mem_copy":-1`, 1),
		"zero bandwidth":    strings.Replace(string(good), `"net_bandwidth":12500000000`, `"net_bandwidth":0`, 1),
		"locality of 1":     strings.Replace(string(good), `"locality":0`, `"locality":1`, 1),
		"not json":          "servers: 4",
		"negative overhead": strings.Replace(string(good), `"startup_s":1`, `"startup_s":-1`, 1),
	}
	for name, in := range cases {
		if in == string(good) {
			t.Fatalf("%s: the replacement did not apply", name)
		}
		if _, err := ReadParams(strings.NewReader(in)); !errors.Is(err, ErrParams) {
			t.Errorf("%s: err = %v, want ErrParams", name, err)
		}
	}
}

func FuzzReadParams(f *testing.F) {
	good, _ := json.Marshal(Lustre())
	f.Add(good)
	f.Add([]byte(`{"servers":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadParams(bytes.NewReader(b))
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted invalid parameters: %v", err)
		}
	})
}
