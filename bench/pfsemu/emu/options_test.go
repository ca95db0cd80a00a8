package emu

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Options)
		err  string // substring; "" means valid
	}{
		{"defaults", func(o *Options) {}, ""},
		{"zero value", func(o *Options) { *o = Options{} }, ""},
		{"no readahead", func(o *Options) { o.Readahead = NoReadahead }, ""},
		{"big readahead", func(o *Options) { o.Readahead = 8 << 20 }, ""},
		{"page request", func(o *Options) { o.MaxRequest = 4096 }, ""},
		{"negative latency", func(o *Options) { o.Latency = -time.Millisecond }, "latency"},
		{"negative bandwidth", func(o *Options) { o.Bandwidth = -1 }, "bandwidth"},
		{"request below a page", func(o *Options) { o.MaxRequest = 512 }, "page size"},
		{"request not pages", func(o *Options) { o.MaxRequest = 4096 + 1 }, "page size"},
		{"request beyond kernel", func(o *Options) { o.MaxRequest = KernelMaxRequest() * 2 }, "kernel"},
		{"readahead odd", func(o *Options) { o.Readahead = 1000 }, "1KiB"},
		{"readahead negative", func(o *Options) { o.Readahead = -2 }, "negative"},
		{"servers", func(o *Options) { o.Servers, o.ServerState = 4, "q" }, ""},
		{"servers zero value", func(o *Options) { *o = Options{Servers: 3} }, ""},
		{"server options ignored without servers", func(o *Options) { o.StripeCount = 99 }, ""},
		{"negative servers", func(o *Options) { o.Servers = -1 }, "servers"},
		{"too many servers", func(o *Options) { o.Servers = MaxServers + 1 }, "servers"},
		{"state without servers", func(o *Options) { o.ServerState = "q" }, "needs servers"},
		{"stripe not pages", func(o *Options) { o.Servers, o.StripeSize = 2, 5000 }, "stripe size"},
		{"stripe count above servers", func(o *Options) { o.Servers, o.StripeCount = 2, 3 }, "stripe count"},
		{"negative stripe count", func(o *Options) { o.Servers, o.StripeCount = 2, -1 }, "stripe count"},
		{"negative server latency", func(o *Options) { o.Servers, o.ServerLatency = 2, -ms }, "server latency"},
		{"negative server threads", func(o *Options) { o.Servers, o.ServerThreads = 2, -1 }, "threads"},
		{"negative server bandwidth", func(o *Options) { o.Servers, o.ServerBandwidth = 2, -1 }, "server bandwidth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			tt.mod(&o)
			err := o.Validate()
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrOption)):
				t.Fatalf("Validate = %v, want an ErrOption about %q", err, tt.err)
			}
		})
	}
}

func TestOptionsString(t *testing.T) {
	o := DefaultOptions()
	got := o.String()
	want := "latency 1ms, max request 1MiB, readahead 128KiB, bandwidth 1GB/s"
	if got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	o = DefaultOptions()
	o.Servers, o.StripeCount, o.ServerThreads, o.ServerBandwidth = 8, 2, 32, 2.8e9
	if got, want := o.String(), "latency 1ms, max request 1MiB, readahead 128KiB, bandwidth 1GB/s, 8 servers (stripe 1MiB over 2; 1ms per request, 32 at once, 2.8GB/s each)"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	o = Options{Readahead: NoReadahead, DirectIO: true}
	if got := o.String(); got != "latency 0s, max request 1MiB, readahead 0B, bandwidth unlimited, direct-io" {
		t.Fatalf("String() = %q", got)
	}
}
