package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/lmdbio/lmdbio/internal/kit/bench"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/sampler"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// benchOptions are the flags of lmdbio bench, as typed.
type benchOptions struct {
	loader      loaderFlags
	modes       string
	shuffles    string // --shuffle, a list here
	localities  string // --locality, a list here
	staggers    string // --stagger, a list here
	ranks       string
	cache       string
	consumer    string
	probes      string
	rounds      int
	peers       string
	peersDir    string
	peerWorkers int
	python      string
	workload    string
	json        bool
}

// benchModesDefault is every stacked mode once: "default" is the full
// stack, so lmm+dio+prov+coal+stag is left out rather than measured twice.
const benchModesDefault = "lmdb,lmm,lmm+dio,lmm+dio+prov,lmm+dio+prov+coal,default"

// benchModesHDF5 is the default for HDF5 files: the modes that read them
// (those with an index).
const benchModesHDF5 = "lmm+dio+prov,lmm+dio+prov+coal,default"

func newBenchCommand() *cobra.Command {
	opt := benchOptions{modes: benchModesDefault, cache: "cold,warm", consumer: "touch,sha256", rounds: 3,
		shuffles: "none", localities: "on", staggers: fmt.Sprint(loader.DefaultStagger),
		probes:      benchProbesDefault(),
		peerWorkers: 8, python: "/usr/bin/python3", workload: "none"}
	cmd := &cobra.Command{
		Use:   "bench [flags] PATH",
		Short: "Measure the loader's modes, other loaders and the storage limit on one dataset",
		Long: `

Run it as an MPI program: lmdbio run -n 4 -- lmdbio bench PATH. For every
round, cache state (cold: the page cache is dropped before each measurement;
needs root, else it warns and measures warm), rank count (--ranks: the first N
ranks of the job read; the others wait), mode (--modes) and consumer
(--consumer), every learner opens the loader, reads every record once per
epoch and applies the consumer to it. Contenders are interleaved within each
round, so drift in the machine's speed hits them all alike, and the order of
those compared with each other changes from round to round so that each of
two runs before the other as often as after it (the second of two cold runs
in a row can be slower); the summary gives medians and spreads over rounds.

Equal work: every contender, lmdbio's modes and the peers alike, runs every
consumer of --consumer in the same run (touch: one byte in every page of
every value; sha256: the digest of lmdbio digest), and is timed over the same
window: from the start of its loader to its last batch. What a process pays
before any loader can start is left out and reported (process_startup_s):
for lmdbio's learners the exec, the linking and the Go runtime's start, and
their MPI start-up (MPI_Init and the topology; a training job starts MPI
with any loader); for a peer its interpreter and imports. lmdbio's learners
started once for the whole run, so what their program did before the job
is added to the time from before Open to the last batch; peers are new
processes and measure from the end of their imports. Start-up (the start
of the window to the loader ready) is reported on its own too. Ratios
compare only contenders with the same consumer, rank count and cache
state: the ratio of their medians over rounds and, paired by round, the
geometric mean of the per-round ratios with its 95% interval, which
cancels the machine's drift between rounds.

Measured per result: samples/s and MB/s delivered to all learners (over the
slowest learner's window), start-up, time to first batch (min, median, max
over ranks), time learners spent waiting inside Next (stall), bytes that
reached storage and read system calls (/proc/self/io read_bytes and syscr,
summed over ranks; read_bytes counts only bytes fetched from storage, not
page-cache hits), peak RSS and shared-memory bytes.

Each round also measures the limit of the storage in each cache state: the
first rank of every host reads its host's share of the data file, all hosts
at once, front to back the way a tuned sequential reader would, with every
probe of --limit-probes (buffered or O_DIRECT, several streams, several
requests in flight; "limit" lines), and the fastest probe is the round's
limit. Every result is also given as a fraction of it; a
contender whose median exceeds the limit by more than the noise band (the
larger of both spreads and 10%) is flagged above_limit in its summary line.
--peers runs other loaders from --peers-dir over the same dataset as
subprocesses (torch-readahead, torch-noreadahead: PyTorch DataLoader over
py-lmdb; torch-ddp: a PyTorch DDP job, one DataLoader per rank reading its
DistributedSampler share, the node's --peer-workers shared between its
ranks; caffe: a Caffe-MPI-style reader on every rank; torch-lmdbio: a
PyTorch loop over lmdbio's Python binding, its learners started by lmdbio
run --agent, in the file's order like the default mode it is compared
with; for HDF5 files torch-h5py and torch-h5py-noshuffle: PyTorch
DataLoader over h5py, one h5py.File per worker). Torch peers but
torch-lmdbio read as many epochs as --epochs.

--shuffle, --locality and --stagger take lists here: every mode that reads
through the index is measured with every shuffle (each chunk or global
shuffle with every locality), and the full stack with every stagger; each
such combination is a contender of its own, named like
default/global/locality-off or default/stagger-2. Modes that read by
cursor (lmdb, lmm, lmm+dio) have no shuffle and run in the file's order.
HDF5 files (--dataset, --labels) are read in the modes with an index, which
are the default modes for them.

Every epoch of every contender gets its figures (an "epoch" line): its share
of the window, the bytes the node readers read from storage (and that over
the data file's size: the read amplification), the bytes exchanged between
nodes, the share of records served from the node caches, the learners'
wait for data (stall) and, for HDF5 chunks, the bytes decoded and the
decoders' rate per core. Peers report their epochs' times, their wait for
batches and their processes' block input from storage.

--workload resnet50|unet3d|cosmoflow emulates the accelerators of the
DLIO / MLPerf Storage workloads: its batch size, and after every batch a sleep
of its compute time; results carry the accelerator utilisation AU = compute
time / the loader's time (Open to the last batch), and an au-search line gives
the most accelerators per node that stay at or above the workload's AU
threshold (0.9; 0.7 for cosmoflow). Without --ranks it tries every rank count
from 1 to the job's size.

Every contender must deliver the same records and bytes, and with consumer
sha256 the same digest as lmdbio digest; a disagreement is an error. --json
prints one object per line (types result, epoch, limit, peer, au-search,
summary, ratio).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := opt.config(args[0], cmd.Flags())
			if err != nil {
				return err
			}
			return benchRunner(cfg)
		},
	}
	f := cmd.Flags()
	// The loader's flags, but --modes replaces --mode.
	loaderSet := pflag.NewFlagSet("loader", pflag.ContinueOnError)
	opt.loader.register(loaderSet, assign.Keep.String())
	loaderSet.VisitAll(func(fl *pflag.Flag) {
		switch fl.Name {
		case "mode", "shuffle", "locality", "stagger": // lists here
		default:
			f.AddFlag(fl)
		}
	})
	f.StringVar(&opt.modes, "modes", opt.modes, "modes to measure, comma-separated: "+strings.Join(loader.ModeNames(), ", ")+
		", default (for HDF5: "+benchModesHDF5+")")
	f.StringVar(&opt.shuffles, "shuffle", opt.shuffles, "orders of every epoch to measure, comma-separated: "+strings.Join(sampler.ShuffleNames(), ", "))
	f.StringVar(&opt.localities, "locality", opt.localities, "locality-aware assignment for chunk and global, comma-separated: on, off")
	f.StringVar(&opt.staggers, "stagger", opt.staggers, "node readers on storage at once (with the stag optimisation), comma-separated")
	f.StringVar(&opt.ranks, "ranks", "", "rank counts to measure, comma-separated (default: the job's size; with --workload 1 to the job's size)")
	f.StringVar(&opt.cache, "page-cache", opt.cache, "page cache states to measure: cold (dropped first), warm or both")
	f.StringVar(&opt.consumer, "consumer", opt.consumer, "what learners do with each record, comma-separated, each run by every contender: touch (a byte in every page), sha256 (digest) or none")
	f.StringVar(&opt.probes, "limit-probes", opt.probes, "how the storage limit is measured, comma-separated buffered|direct:STREAMSxDEPTH:SIZE (the fastest is the limit), or none")
	f.IntVar(&opt.rounds, "rounds", opt.rounds, "rounds of interleaved measurements")
	f.StringVar(&opt.peers, "peers", "", "other loaders to run, comma-separated: "+strings.Join(benchPeerNames, ", "))
	f.StringVar(&opt.peersDir, "peers-dir", "", "directory of the peer scripts (default: bench/peers beside the binary's directory, else in the working directory)")
	f.IntVar(&opt.peerWorkers, "peer-workers", opt.peerWorkers, "DataLoader workers of the torch peers")
	f.StringVar(&opt.python, "python", opt.python, "Python interpreter for the peers")
	f.StringVar(&opt.workload, "workload", opt.workload, "emulated accelerators: none, "+strings.Join(bench.WorkloadNames(), ", "))
	f.BoolVar(&opt.json, "json", false, "print one JSON object per line")
	return cmd
}

// benchRunner runs a checked bench command line (tests look at it instead).
var benchRunner = runBench

// benchMode is one contender of lmdbio's: a loader mode under the name the
// user gave it, with the order of its epochs and its stagger.
type benchMode struct {
	name     string
	mode     loader.Mode
	shuffle  sampler.Shuffle
	locality loader.Switch
	stagger  int
	label    string // the contender's name: name, then what is not the default
}

// benchConfig is a checked bench command line.
type benchConfig struct {
	path        string
	format      source.Format
	lopt        loader.Options // without Topology, Mode, Shuffle, Locality and Stagger
	modes       []benchMode
	ranks       []int // nil: decided from the job's size
	caches      []string
	consumers   []bench.ConsumerKind
	probes      []bench.Probe
	rounds      int
	peers       []string
	peersDir    string
	peerWorkers int
	python      string
	workload    bench.Workload
	json        bool
	wholeJob    bool     // measure only the whole job, never fewer ranks
	warnings    []string // for rank 0 to print once the job has started
}

// config checks the flags; it needs no MPI, so usage errors come before the
// job starts.
func (o *benchOptions) config(path string, flags *pflag.FlagSet) (benchConfig, error) {
	lopt, err := o.loader.options(nil)
	if err != nil {
		return benchConfig{}, err
	}
	if lopt.Remainder != assign.Keep && o.peers != "" {
		// The peers read every record once; the contenders must agree.
		return benchConfig{}, usagef("--remainder %s: the peers read every record (keep); leave --remainder out with --peers", lopt.Remainder)
	}
	cfg := benchConfig{path: path, lopt: lopt, rounds: o.rounds, peerWorkers: o.peerWorkers, python: o.python, json: o.json}
	cfg.format = source.LMDB
	if f, err := source.Detect(path); err == nil {
		cfg.format = f // else the job's start says what is wrong with the path
	}
	modes := o.modes
	if cfg.format == source.HDF5 && !flags.Changed("modes") {
		modes = benchModesHDF5
	}
	if cfg.modes, err = o.contenders(modes, cfg.format, &cfg.warnings); err != nil {
		return cfg, err
	}
	if o.ranks != "" {
		if cfg.ranks, err = parseRankList(o.ranks); err != nil {
			return cfg, err
		}
	}
	if cfg.caches, err = parseChoices("page-cache", o.cache, []string{"cold", "warm"}); err != nil {
		return cfg, err
	}
	if cfg.consumers, err = parseConsumers(o.consumer); err != nil {
		return cfg, err
	}
	if cfg.probes, err = parseProbes(o.probes); err != nil {
		return cfg, err
	}
	if o.rounds < 1 {
		return cfg, usagef("--rounds %d: want at least 1", o.rounds)
	}
	if o.peers != "" {
		if cfg.peers, err = parseChoices("peers", o.peers, benchPeerNames); err != nil {
			return cfg, err
		}
		if o.peerWorkers < 0 {
			return cfg, usagef("--peer-workers %d: want 0 or more", o.peerWorkers)
		}
		if err := checkPeers(cfg.peers, cfg.format, lopt.Epochs); err != nil {
			return cfg, err
		}
		if cfg.peersDir, err = findPeersDir(o.peersDir, cfg.peers); err != nil {
			return cfg, err
		}
	}
	if cfg.workload, err = bench.ParseWorkload(o.workload); err != nil {
		return cfg, usageError(err)
	}
	if cfg.workload.Enabled() {
		if flags.Changed("batch") && lopt.Batch != cfg.workload.Batch {
			cfg.warnings = append(cfg.warnings, fmt.Sprintf("--workload %s trains with batch %d; --batch %d ignored",
				cfg.workload.Name, cfg.workload.Batch, lopt.Batch))
		}
		cfg.lopt.Batch = cfg.workload.Batch
	}
	return cfg, nil
}

// parseBenchModes reads --modes; a mode listed twice under two names (the
// full stack and "default") is measured once, under the first name.
func parseBenchModes(s string) ([]benchMode, error) {
	var out []benchMode
	for _, name := range splitList(s) {
		m, err := loader.ParseMode(name)
		if err != nil {
			return nil, usageError(err)
		}
		dup := false
		for _, have := range out {
			dup = dup || have.mode == m
		}
		if !dup {
			out = append(out, benchMode{name: name, mode: m})
		}
	}
	if len(out) == 0 {
		return nil, usagef("--modes: name at least one mode")
	}
	return out, nil
}

// parseConsumers reads --consumer: distinct consumer names, kept in order.
func parseConsumers(s string) ([]bench.ConsumerKind, error) {
	var out []bench.ConsumerKind
	for _, f := range splitList(s) {
		k, err := bench.ParseConsumer(f)
		if err != nil {
			return nil, usageError(err)
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil, usagef("--consumer: name at least one of touch, sha256, none")
	}
	return out, nil
}

// parseProbes reads --limit-probes; "none" measures no limit.
func parseProbes(s string) ([]bench.Probe, error) {
	if strings.TrimSpace(s) == "none" {
		return nil, nil
	}
	var out []bench.Probe
	for _, f := range splitList(s) {
		p, err := bench.ParseProbe(f)
		if err != nil {
			return nil, usageError(err)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, usagef("--limit-probes: name at least one probe, or none")
	}
	return out, nil
}

// benchProbesDefault is --limit-probes' default: bench.LimitProbes.
func benchProbesDefault() string {
	names := make([]string, len(bench.LimitProbes))
	for i, p := range bench.LimitProbes {
		names[i] = p.String()
	}
	return strings.Join(names, ",")
}

// parseRankList reads --ranks: distinct whole numbers >= 1, kept in order.
func parseRankList(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, usagef("--ranks %q: want rank counts >= 1, comma-separated", s)
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, usagef("--ranks: name at least one rank count")
	}
	return out, nil
}

// parseChoices reads a comma list of distinct names out of allowed.
func parseChoices(flag, s string, allowed []string) ([]string, error) {
	var out []string
	for _, f := range splitList(s) {
		ok := false
		for _, a := range allowed {
			ok = ok || a == f
		}
		if !ok {
			return nil, usagef("--%s %q: want %s", flag, f, strings.Join(allowed, ", "))
		}
		dup := false
		for _, have := range out {
			dup = dup || have == f
		}
		if !dup {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, usagef("--%s: name at least one of %s", flag, strings.Join(allowed, ", "))
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// findPeersDir picks the directory of the peer scripts and checks that the
// scripts the peers need are there.
func findPeersDir(flag string, peers []string) (string, error) {
	dir := flag
	if dir == "" {
		dir = filepath.Join("bench", "peers")
		if exe, err := os.Executable(); err == nil {
			beside := filepath.Join(filepath.Dir(exe), "..", "bench", "peers")
			if st, err := os.Stat(beside); err == nil && st.IsDir() {
				dir = beside
			}
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usageError(err)
	}
	for _, p := range peers {
		script := filepath.Join(abs, benchPeerScript(p))
		if _, err := os.Stat(script); err != nil {
			return "", usagef("--peers %s: %s not found (set --peers-dir)", p, script)
		}
	}
	return abs, nil
}
