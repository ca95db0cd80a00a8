package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/model"
	"github.com/lmdbio/lmdbio/internal/units"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newModelCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model COMMAND",
		Short: "Predict loading at scale from a model fitted to lmdbio-bench bench runs",
		Long: `

A model of how long loading a dataset takes on N nodes × R learners per node,
for the Caffe-MPI baseline (every rank faults its own pages through its node's
client: many readahead-sized requests, contention at the servers), each of
LMDBIO's stacked optimisations as lmdbio implements them, and the shuffling
cache with its exchange (epoch 1 storage-bound, later epochs exchange-bound).
Its parameters: storage servers, their bandwidth, per-request overhead and a
contention curve, request latency, readahead and request sizes, per-node read
rate, memory copy and consumer rates, cursor steps, start-up, the exchange's
network bandwidth and latency. See the package documentation of internal/kit/model for
the equations.

  lmdbio-bench model params            the Lustre-like parameter set, with sources
  lmdbio-bench model fit FILE...       fit parameters to lmdbio-bench bench --json lines
  lmdbio-bench model predict           predict a range of node counts, with plots
  lmdbio-bench model synth             bench lines from known parameters (testing)`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return cli.Usagef("model: unknown command %q (see lmdbio-bench model --help)", args[0])
		},
	}
	for _, c := range []*cobra.Command{newModelParamsCommand(), newModelFitCommand(), newModelPredictCommand(), newModelSynthCommand()} {
		c.Args = cli.UsageArgs(c.Args)
		c.PreRunE = func(cmd *cobra.Command, _ []string) error { return checkFloatFlags(cmd.Flags()) }
		c.Long = c.Short + "." + c.Long + cli.ExitStatusHelp
		cmd.AddCommand(c)
	}
	return cmd
}

// checkFloatFlags refuses NaN in the float flags set: pflag reads "NaN"
// as a number, and range checks (x < 0 || x > 1) let it through to print
// NaN where results should be.
func checkFloatFlags(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if f.Value.Type() != "float64" || err != nil {
			return
		}
		if v, perr := strconv.ParseFloat(f.Value.String(), 64); perr == nil && math.IsNaN(v) {
			err = cli.Usagef("--%s %s: not a number", f.Name, f.Value)
		}
	})
	return err
}

// paramsFlags choose a parameter set: a file, else the Lustre-like one,
// with single parameters set on top.
type paramsFlags struct {
	file string
	set  []string
}

func (f *paramsFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.file, "params", "", "parameter file (JSON, as model params --json or model fit --json print; default: the Lustre-like set)")
	fs.StringArrayVar(&f.set, "set", nil, "set one parameter, NAME=VALUE (sizes may carry units: readahead=128KiB); repeatable")
}

func (f *paramsFlags) load() (model.ParamsFile, error) {
	pf := model.Lustre()
	if f.file != "" {
		in, err := os.Open(f.file)
		if err != nil {
			return pf, cli.UsageError(err)
		}
		pf, err = model.ReadParams(in)
		in.Close()
		if err != nil {
			return pf, cli.UsageError(fmt.Errorf("%s: %w", f.file, err))
		}
	}
	for _, kv := range f.set {
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return pf, cli.Usagef("--set %q: want NAME=VALUE", kv)
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			n, serr := units.ParseSize(val)
			if serr != nil {
				return pf, cli.Usagef("--set %s: %q is not a number", name, val)
			}
			v = float64(n)
		}
		if err := pf.Set(name, v); err != nil {
			return pf, cli.UsageError(err)
		}
		pf.Assumptions = append(pf.Assumptions, fmt.Sprintf("%s set to %s on the command line", name, val))
	}
	if err := pf.Validate(); err != nil {
		return pf, cli.UsageError(err)
	}
	return pf, nil
}

// workloadFlags describe the dataset, the learners' work and the loader's
// settings of the runs predict and synth make up.
type workloadFlags struct {
	records    int
	recordSize cli.SizeFlag
	batch      int
	epochs     int
	consumers  string
	compute    time.Duration
	walk       float64
	direct     bool
	stagger    int
	ioDepth    int
	window     cli.SizeFlag
	maxSpan    cli.SizeFlag
}

func (f *workloadFlags) register(fs *pflag.FlagSet, consumers string) {
	w, _ := model.CIFARWorkload()
	f.records, f.recordSize, f.batch, f.epochs = int(w.Records), cli.SizeFlag(w.Bytes/w.Records), w.Batch, w.Epochs
	f.consumers, f.compute, f.walk = consumers, time.Duration(w.Compute*float64(time.Second)), w.WalkFraction
	l := model.DefaultLoader
	f.stagger, f.ioDepth, f.window, f.maxSpan = l.Stagger, l.IODepth, cli.SizeFlag(l.Window), cli.SizeFlag(l.MaxSpan)
	fs.IntVar(&f.records, "records", f.records, "records in the dataset")
	fs.Var(&f.recordSize, "record-size", "bytes per record")
	fs.IntVar(&f.batch, "batch", f.batch, "records per learner batch")
	fs.IntVar(&f.epochs, "epochs", f.epochs, "epochs read")
	fs.StringVar(&f.consumers, "consumer", f.consumers, "what learners do with each record: touch, sha256 or none (comma-separated for synth)")
	fs.DurationVar(&f.compute, "compute", f.compute, "emulated accelerator time per batch")
	fs.Float64Var(&f.walk, "walk-fraction", f.walk, "share of the file a cursor walk reads per byte of data: 1 for records inline in the leaf pages, about key/record size for values on overflow pages")
	fs.BoolVar(&f.direct, "direct", false, "lmdbio reads with O_DIRECT (as its node readers do on a network file system)")
	fs.IntVar(&f.stagger, "stagger", f.stagger, "node readers on storage at once (default mode)")
	fs.IntVar(&f.ioDepth, "io-depth", f.ioDepth, "reads in flight per node reader")
	fs.Var(&f.window, "window", "bytes per coalesced window")
	fs.Var(&f.maxSpan, "max-span", "largest single read")
}

func (f *workloadFlags) workload() (model.Workload, model.Loader, []string, error) {
	consumers := splitList(f.consumers)
	w := model.Workload{Bytes: float64(f.records) * float64(f.recordSize), Records: float64(f.records), Batch: f.batch,
		Epochs: f.epochs, Compute: f.compute.Seconds(), WalkFraction: f.walk}
	if len(consumers) > 0 {
		w.Consumer = consumers[0]
	}
	l := model.Loader{Direct: f.direct, Stagger: f.stagger, IODepth: f.ioDepth, Window: float64(f.window), MaxSpan: float64(f.maxSpan)}
	cfg := model.Config{Contender: model.STAG, Nodes: 1, RanksPerNode: 1, Workload: w, Loader: l}
	for _, c := range consumers {
		cfg.Consumer = c
		if err := cfg.Validate(); err != nil {
			return w, l, nil, cli.UsageError(err)
		}
	}
	if len(consumers) == 0 {
		return w, l, nil, cli.Usagef("--consumer: name at least one of touch, sha256, none")
	}
	return w, l, consumers, nil
}

// parseContenders reads --contenders.
func parseContenders(s string) ([]model.Contender, error) {
	var out []model.Contender
	for _, f := range splitList(s) {
		c, err := model.ParseContender(f)
		if err != nil {
			return nil, cli.UsageError(err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, cli.Usagef("--contenders: name at least one")
	}
	return out, nil
}

// parseCounts reads a list of counts: "1,2,4", or "1..256" for every power
// of two times the first from the first to the last.
func parseCounts(flag, s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		lo, hi, isRange := strings.Cut(f, "..")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 1 {
			return nil, cli.Usagef("--%s %q: want counts >= 1 (1,2,4 or 1..256)", flag, s)
		}
		if !isRange {
			out = append(out, a)
			continue
		}
		b, err := strconv.Atoi(hi)
		if err != nil || b < a || b > 1<<20 {
			return nil, cli.Usagef("--%s %q: want a range a..b with 1 <= a <= b", flag, s)
		}
		for n := a; n <= b; n *= 2 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, cli.Usagef("--%s: name at least one count", flag)
	}
	return out, nil
}

// paramsLine is a parameter set as a --json line: it reads back with --params.
func paramsLine(pf model.ParamsFile) model.ParamsFile {
	pf.Type = "params"
	return pf
}

func newModelParamsCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "params [--json]",
		Short: "Print the Lustre-like parameter set, its sources and its assumptions",
		Long: `

The parameters lmdbio-bench model predict uses unless given --params: figures
published for Lustre file systems where there are some (each with its
source), assumptions where there are none (each stated). With --json, one
line a --params file may hold.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pf := model.Lustre()
			if asJSON {
				return cli.PrintJSON(os.Stdout, paramsLine(pf))
			}
			printParams(os.Stdout, pf, nil)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// printParams writes a parameter set for people: values (with standard
// errors when fitted), sources, assumptions.
func printParams(w io.Writer, pf model.ParamsFile, stdErr map[string]float64) {
	name := pf.Name
	if name == "" {
		name = "parameters"
	}
	fmt.Fprintf(w, "%s:\n", name)
	for _, line := range pf.Describe() {
		n, _, _ := strings.Cut(line, " ")
		if se, ok := stdErr[n]; ok {
			line += fmt.Sprintf("  (fitted, ±%s)", fmtStdErr(se))
		}
		fmt.Fprintf(w, "  %s\n", line)
	}
	for _, s := range pf.Sources {
		fmt.Fprintf(w, "source: %s\n", s)
	}
	for _, a := range pf.Assumptions {
		fmt.Fprintf(w, "assumption: %s\n", a)
	}
}

func fmtStdErr(se float64) string {
	if se > 10 {
		return "unconstrained by the data"
	}
	return fmt.Sprintf("%.1f%%", 100*se)
}
