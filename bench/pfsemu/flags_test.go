package main

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/bench/pfsemu/emu"
	"github.com/spf13/pflag"
)

func TestParseArgs(t *testing.T) {
	def := emu.DefaultOptions()
	with := func(mod func(*emu.Options)) emu.Options {
		o := def
		mod(&o)
		return o
	}
	tests := []struct {
		name string
		args string
		want config
		err  string // "" ok, "help", or a substring of the usage error
	}{
		{name: "defaults", args: "src mnt", want: config{src: "src", mnt: "mnt", opt: def}},
		{name: "all flags", args: "--latency 250us --max-request 256KiB --readahead 1MiB --bandwidth 500MB/s --direct-io --stats s.json --ready-file r src mnt",
			want: config{src: "src", mnt: "mnt", statsFile: "s.json", readyFile: "r", opt: with(func(o *emu.Options) {
				o.Latency, o.MaxRequest, o.Readahead, o.Bandwidth, o.DirectIO = 250*time.Microsecond, 256<<10, 1<<20, 5e8, true
			})}},
		{name: "servers", args: "--servers 4 --stripe-size 4MiB --stripe-count 2 --server-latency 2ms --server-threads 8 --server-bandwidth 2GB/s --server-state q src mnt",
			want: config{src: "src", mnt: "mnt", opt: with(func(o *emu.Options) {
				o.Servers, o.StripeSize, o.StripeCount, o.ServerLatency, o.ServerThreads, o.ServerBandwidth, o.ServerState = 4, 4<<20, 2, 2*time.Millisecond, 8, 2e9, "q"
			})}},
		{name: "server defaults", args: "--servers 2 src mnt", want: config{src: "src", mnt: "mnt", opt: with(func(o *emu.Options) { o.Servers = 2 })}},
		{name: "flags after arguments", args: "src mnt --latency=0 --bandwidth unlimited",
			want: config{src: "src", mnt: "mnt", opt: with(func(o *emu.Options) { o.Latency, o.Bandwidth = 0, 0 })}},
		{name: "readahead off", args: "--readahead 0 src mnt",
			want: config{src: "src", mnt: "mnt", opt: with(func(o *emu.Options) { o.Readahead = emu.NoReadahead })}},
		{name: "server flag without servers", args: "--server-latency 5ms src mnt", err: "--server-latency needs --servers"},
		{name: "state without servers", args: "--server-state q src mnt", err: "--server-state needs --servers"},
		{name: "stripe count above servers", args: "--servers 2 --stripe-count 3 src mnt", err: "stripe count 3"},
		{name: "stripe size not pages", args: "--servers 2 --stripe-size 1000 src mnt", err: "stripe size"},
		{name: "negative servers", args: "--servers -1 src mnt", err: "servers"},
		{name: "help", args: "--help", err: "help"},
		{name: "no arguments", args: "", err: "want SRC and MOUNTPOINT"},
		{name: "three arguments", args: "a b c", err: "got 3 arguments"},
		{name: "unknown flag", args: "--fast src mnt", err: "unknown flag"},
		{name: "bad size", args: "--max-request lots src mnt", err: "not a size"},
		{name: "bad rate", args: "--bandwidth quick src mnt", err: "not a bandwidth"},
		{name: "bad duration", args: "--latency 1 src mnt", err: "latency"},
		{name: "request not pages", args: "--max-request 1000 src mnt", err: "page size"},
		{name: "request too big", args: "--max-request 1TiB src mnt", err: "kernel"},
		{name: "negative latency", args: "--latency -1ms src mnt", err: "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseArgs(strings.Fields(tt.args), io.Discard)
			switch {
			case tt.err == "help":
				if !errors.Is(err, pflag.ErrHelp) {
					t.Fatalf("err = %v, want ErrHelp", err)
				}
			case tt.err != "":
				if err == nil || !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want a usage error about %q", err, tt.err)
				}
			case err != nil:
				t.Fatalf("parseArgs: %v", err)
			case got != tt.want:
				t.Fatalf("parseArgs:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
