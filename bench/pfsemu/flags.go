package main

import (
	"github.com/lmdbio/lmdbio/internal/units"

	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lmdbio/lmdbio/bench/pfsemu/emu"
	"github.com/spf13/pflag"
)

// config is the parsed command line.
type config struct {
	src, mnt  string
	opt       emu.Options
	statsFile string
	readyFile string
}

// errUsage marks errors of the command line (exit status 2).
var errUsage = errors.New("usage")

// usageError is a command-line error: its message is the problem alone, and
// it matches errUsage under errors.Is.
type usageError struct{ msg string }

func (e usageError) Error() string        { return e.msg }
func (e usageError) Is(target error) bool { return target == errUsage }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// sizeValue is a byte count flag: 4096, 128KiB, 1MiB.
type sizeValue struct{ p *int64 }

func (v sizeValue) String() string {
	if v.p == nil {
		return ""
	}
	return units.FormatSize(*v.p)
}
func (v sizeValue) Type() string { return "bytes" }
func (v sizeValue) Set(s string) error {
	n, err := units.ParseSize(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

// rateValue is a bandwidth flag: 1GB/s, 500MiB/s, unlimited.
type rateValue struct{ p *float64 }

func (v rateValue) String() string {
	if v.p == nil {
		return ""
	}
	return units.FormatRate(*v.p)
}
func (v rateValue) Type() string { return "rate" }
func (v rateValue) Set(s string) error {
	r, err := units.ParseRate(s)
	if err != nil {
		return err
	}
	*v.p = r
	return nil
}

const usageHead = `usage: pfsemu [flags] SRC MOUNTPOINT

Serve the directory SRC read-only at MOUNTPOINT through FUSE, with the costs of
a parallel file system: a latency per read request, a largest request size, a
small readahead and an aggregate bandwidth; with --servers, storage servers
that files are striped over and where the requests of all clients queue (give
every mount of one file system the same --server-state file). Runs until
SIGINT or SIGTERM, then unmounts. SIGUSR1 prints the counters as one JSON line.

Flags:
`

// parseArgs parses the command line. The returned error wraps errUsage, or is
// pflag.ErrHelp when help was asked for.
func parseArgs(args []string, out io.Writer) (config, error) {
	cfg := config{opt: emu.DefaultOptions()}
	fs := pflag.NewFlagSet("pfsemu", pflag.ContinueOnError)
	fs.SetOutput(out)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprint(out, usageHead, fs.FlagUsages())
	}
	fs.DurationVar(&cfg.opt.Latency, "latency", cfg.opt.Latency, "time added to every read request")
	fs.Var(sizeValue{&cfg.opt.MaxRequest}, "max-request", "largest read request the kernel may send")
	fs.Var(sizeValue{&cfg.opt.Readahead}, "readahead", "page-cache readahead of the mount (0: none)")
	fs.Var(rateValue{&cfg.opt.Bandwidth}, "bandwidth", "bytes per second for all clients together (unlimited: no cap)")
	fs.BoolVar(&cfg.opt.DirectIO, "direct-io", false, "serve every open uncached (FOPEN_DIRECT_IO)")
	fs.StringVar(&cfg.statsFile, "stats", "", "write the counters as JSON to this file every second and at exit")
	fs.StringVar(&cfg.readyFile, "ready-file", "", "create this file once the file system is mounted")
	fs.BoolVar(&cfg.opt.Debug, "debug", false, "log every FUSE request to stderr")
	fs.IntVar(&cfg.opt.Servers, "servers", 0, "emulated storage servers (OSTs) every request queues at (0: none)")
	fs.Var(sizeValue{&cfg.opt.StripeSize}, "stripe-size", "bytes of a file on one server before the next")
	fs.IntVar(&cfg.opt.StripeCount, "stripe-count", 0, "servers a file is striped over (0: all)")
	fs.DurationVar(&cfg.opt.ServerLatency, "server-latency", cfg.opt.ServerLatency, "time a server spends on each request besides its bytes")
	fs.IntVar(&cfg.opt.ServerThreads, "server-threads", cfg.opt.ServerThreads, "requests a server works on at once")
	fs.Var(rateValue{&cfg.opt.ServerBandwidth}, "server-bandwidth", "bytes per second of one server (unlimited: no cap)")
	fs.StringVar(&cfg.opt.ServerState, "server-state", "", "file holding the servers' queues, shared by every mount of the same file system")
	// pflag prints parse errors itself; silence them, main prints one line.
	// Usage goes to out all the same.
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		return cfg, err // pflag has printed the usage
	}
	if err != nil {
		return cfg, usagef("%v", err)
	}
	if fs.NArg() != 2 {
		return cfg, usagef("want SRC and MOUNTPOINT, got %d arguments (see --help)", fs.NArg())
	}
	cfg.src, cfg.mnt = fs.Arg(0), fs.Arg(1)
	if fs.Changed("readahead") && cfg.opt.Readahead == 0 {
		cfg.opt.Readahead = emu.NoReadahead
	}
	if cfg.opt.Servers == 0 {
		for _, name := range []string{"stripe-size", "stripe-count", "server-latency", "server-threads", "server-bandwidth", "server-state"} {
			if fs.Changed(name) {
				return cfg, usagef("--%s needs --servers", name)
			}
		}
	}
	if err := cfg.opt.Validate(); err != nil {
		return cfg, usagef("%s", strings.TrimPrefix(err.Error(), emu.ErrOption.Error()+": "))
	}
	return cfg, nil
}
