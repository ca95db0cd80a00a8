package main

import (
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

func TestBenchContenders(t *testing.T) {
	cases := []struct {
		name                   string
		modes, shuffles, local string
		staggers               string
		format                 source.Format
		want                   string // labels, space-separated
		warned                 bool
		wantErr                bool
	}{
		{name: "defaults", modes: "lmdb,default", shuffles: "none", local: "on", staggers: "4", want: "lmdb default"},
		{name: "shuffles; locality only where it chooses", modes: "default", shuffles: "none,local,chunk,global", local: "on,off",
			staggers: "4", want: "default default/local default/chunk default/chunk/locality-off default/global default/global/locality-off"},
		{name: "cursor modes keep the file's order", modes: "lmm,default", shuffles: "global", local: "on", staggers: "4",
			want: "lmm default/global", warned: true},
		{name: "staggers only for the stag mode", modes: "lmm+dio+prov+coal,default", shuffles: "none", local: "on", staggers: "1,2,4",
			want: "lmm+dio+prov+coal default/stagger-1 default/stagger-2 default/stagger-4"},
		{name: "one stagger that is not the default", modes: "default", shuffles: "none", local: "on", staggers: "2", want: "default/stagger-2"},
		{name: "hdf5 refuses the cursor modes", modes: "lmdb,default", shuffles: "none", local: "on", staggers: "4", format: source.HDF5, wantErr: true},
		{name: "hdf5", modes: benchModesHDF5, shuffles: "none", local: "on", staggers: "4", format: source.HDF5,
			want: "lmm+dio+prov lmm+dio+prov+coal default"},
		{name: "unknown shuffle", modes: "default", shuffles: "random", local: "on", staggers: "4", wantErr: true},
		{name: "bad locality", modes: "default", shuffles: "none", local: "maybe", staggers: "4", wantErr: true},
		{name: "bad stagger", modes: "default", shuffles: "none", local: "on", staggers: "0", wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := benchOptions{shuffles: c.shuffles, localities: c.local, staggers: c.staggers}
			format := c.format
			if format == "" {
				format = source.LMDB
			}
			var warnings []string
			got, err := o.contenders(c.modes, format, &warnings)
			if c.wantErr {
				if cli.ExitCode(err) != cli.ExitUsage {
					t.Fatalf("err = %v, want a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var labels []string
			for _, m := range got {
				labels = append(labels, m.label)
				opt := m.options(loader.Options{Batch: 3})
				if opt.Mode != m.mode || opt.Shuffle != m.shuffle || opt.Locality != m.locality || opt.Stagger != m.stagger || opt.Batch != 3 {
					t.Errorf("%s: options %+v", m.label, opt)
				}
			}
			if strings.Join(labels, " ") != c.want {
				t.Errorf("contenders %v, want %s", labels, c.want)
			}
			if (len(warnings) > 0) != c.warned {
				t.Errorf("warnings %v", warnings)
			}
		})
	}
}

// TestBenchLoaderFlags: the loader's shuffle, cache and epoch flags reach
// every contender's options.
func TestBenchLoaderFlags(t *testing.T) {
	var got benchConfig
	defer func(r func(benchConfig) error) { benchRunner = r }(benchRunner)
	benchRunner = func(cfg benchConfig) error { got = cfg; return nil }
	cmd := newBenchCommand()
	cmd.SetArgs([]string{"--modes", "default", "--shuffle", "chunk,global", "--locality", "off", "--seed", "7", "--chunk", "1MiB",
		"--chunk-window", "3", "--cache", "0", "--epochs", "3", "--stagger", "2", t.TempDir()})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if len(got.modes) != 2 {
		t.Fatalf("contenders %+v", got.modes)
	}
	for _, m := range got.modes {
		o := m.options(got.lopt)
		if o.Seed != 7 || o.ChunkBytes != 1<<20 || o.ChunkWindow != 3 || o.Cache != loader.CacheOff || o.Epochs != 3 ||
			o.Stagger != 2 || o.Locality != loader.Off || o.Shuffle != m.shuffle {
			t.Errorf("%s: options %+v", m.label, o)
		}
	}
	if got.modes[1].label != "default/global/locality-off/stagger-2" {
		t.Errorf("label %q", got.modes[1].label)
	}
}

func TestCheckPeers(t *testing.T) {
	cases := []struct {
		peers  string
		format source.Format
		epochs int
		ok     bool
	}{
		{"torch-readahead,caffe", source.LMDB, 1, true},
		{"torch-readahead", source.LMDB, 3, true},
		{"caffe", source.LMDB, 3, false},
		{"torch-h5py,torch-h5py-noshuffle", source.HDF5, 3, true},
		{"torch-h5py", source.LMDB, 1, false},
		{"torch-noreadahead", source.HDF5, 1, false},
	}
	for _, c := range cases {
		err := checkPeers(strings.Split(c.peers, ","), c.format, c.epochs)
		if (err == nil) != c.ok || (err != nil && cli.ExitCode(err) != cli.ExitUsage) {
			t.Errorf("checkPeers(%s, %s, %d) = %v", c.peers, c.format, c.epochs, err)
		}
	}
}
