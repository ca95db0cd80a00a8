package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/bench/figure"
	"github.com/lmdbio/lmdbio/internal/kit/model"
	"github.com/lmdbio/lmdbio/internal/kit/schema"
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

// emitJSON prints one JSON line.
func emitJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
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
				return emitJSON(os.Stdout, paramsLine(pf))
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

func newModelPredictCommand() *cobra.Command {
	var pf paramsFlags
	var wf workloadFlags
	var nodes, rpns, contenders, out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "predict [flags]",
		Short: "Predict epoch time and delivered MB/s against node count",
		Long: `

For every contender and node count, the time from the learners' process
start to the last batch and the MB/s delivered to all learners, with the
stage that bounds it, from a parameter set (--params, default the
Lustre-like one of lmdbio-bench model params) and a workload (default: a CIFAR-10-
like dataset of small records inline in LMDB's leaf pages, as in LMDBIO).
Every assumption behind the parameters and the workload is printed first.
--ranks-per-node takes a list too: one sweep over the nodes for each. --out
DIR writes model_mb_per_s and model_seconds (SVG and PNG; with several
learner counts, model_mb_per_s_rpnK and so on). --json
prints one object per line: a "params" line, "assumption" lines, then a
"prediction" line per contender and node count.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runModelPredict(pf, wf, nodes, rpns, contenders, out, asJSON)
		},
	}
	f := cmd.Flags()
	pf.register(f)
	wf.register(f, "touch")
	f.StringVar(&nodes, "nodes", "1..256", "node counts: 1,2,4 or 1..256 (every power of two between)")
	f.StringVar(&rpns, "ranks-per-node", "36", "learners per node: 36, or a list (4,36) or range (1..32)")
	f.StringVar(&contenders, "contenders", "caffe,lmm,lmm+dio,lmm+dio+prov,lmm+dio+prov+coal,default,exchange", "contenders to predict")
	f.StringVar(&out, "out", "", "directory to write the plots to")
	f.BoolVar(&asJSON, "json", false, "print one JSON object per line")
	return cmd
}

func runModelPredict(pf paramsFlags, wf workloadFlags, nodesFlag, rpnFlag, contendersFlag, out string, asJSON bool) error {
	params, err := pf.load()
	if err != nil {
		return err
	}
	if out != "" {
		if err := cli.CheckOutDir("--out", out, out); err != nil {
			return err
		}
	}
	w, l, _, err := wf.workload()
	if err != nil {
		return err
	}
	nodes, err := parseCounts("nodes", nodesFlag)
	if err != nil {
		return err
	}
	rpns, err := parseCounts("ranks-per-node", rpnFlag)
	if err != nil {
		return err
	}
	contenders, err := parseContenders(contendersFlag)
	if err != nil {
		return err
	}
	assumptions := append(append([]string(nil), params.Assumptions...), workloadAssumptions(wf, w, l)...)
	if asJSON {
		if err := emitJSON(os.Stdout, paramsLine(params)); err != nil {
			return err
		}
		for _, a := range assumptions {
			if err := emitJSON(os.Stdout, map[string]string{"type": "assumption", "text": a}); err != nil {
				return err
			}
		}
	} else {
		shown := params
		shown.Assumptions = assumptions
		printParams(os.Stdout, shown, nil)
	}
	var figs []figure.Figure
	for _, rpn := range rpns {
		points := model.Sweep(params.Params, contenders, nodes, rpn, w, l)
		if err := printPredictions(os.Stdout, points, contenders, nodes, rpn, asJSON); err != nil {
			return err
		}
		if out == "" {
			continue
		}
		fs, err := model.SweepFigures(points, fmt.Sprintf("%s parameters · %d learners per node", params.Name, rpn))
		if err != nil {
			return err
		}
		for i := range fs {
			if len(rpns) > 1 {
				fs[i].Name += fmt.Sprintf("_rpn%d", rpn)
			}
		}
		figs = append(figs, fs...)
	}
	if out == "" {
		return nil
	}
	written, err := figure.WriteAll(out, figs)
	if !asJSON {
		for _, p := range written {
			fmt.Println("wrote", p)
		}
	}
	return err
}

// printPredictions writes one sweep: "prediction" lines, or tables.
func printPredictions(w io.Writer, points []model.Point, contenders []model.Contender, nodes []int, rpn int, asJSON bool) error {
	if !asJSON {
		fmt.Fprintf(w, "\n%d learners per node\n", rpn)
		printSweep(w, points, contenders, nodes)
		return nil
	}
	for _, p := range points {
		if err := emitJSON(w, schema.Prediction{Type: schema.TypePrediction, Contender: string(p.Contender), Nodes: p.Nodes,
			RanksPerNode: p.RanksPerNode, Seconds: p.Seconds, MBPerS: p.MBPerS, FirstEpoch: p.FirstEpoch,
			LaterEpoch: p.LaterEpoch, Bottleneck: p.Bottleneck, Streams: p.Streams, RequestBytes: p.RequestBytes,
			StorageBytes: p.StorageBytes, StorageMBPS: p.StorageMBPerS}); err != nil {
			return err
		}
	}
	return nil
}

// workloadAssumptions states the workload a prediction assumed.
func workloadAssumptions(wf workloadFlags, w model.Workload, l model.Loader) []string {
	return []string{
		fmt.Sprintf("dataset: %d records of %s, %.3g GB, walk fraction %g", wf.records, cli.HumanBytes(int64(wf.recordSize)), w.Bytes/1e9, w.WalkFraction),
		fmt.Sprintf("learners: batch %d, %d epoch(s), consumer %s, compute %v per batch; cold caches", w.Batch, w.Epochs, w.Consumer, wf.compute),
		fmt.Sprintf("lmdbio: stagger %d, io-depth %d, window %s, max span %s, direct %v", l.Stagger, l.IODepth,
			cli.HumanBytes(int64(l.Window)), cli.HumanBytes(int64(l.MaxSpan)), l.Direct),
	}
}

// printSweep writes MB/s and seconds tables, one row per node count.
func printSweep(w io.Writer, points []model.Point, contenders []model.Contender, nodes []int) {
	for _, t := range []struct {
		title string
		value func(model.Point) string
	}{
		{"delivered MB/s (bottleneck)", func(p model.Point) string { return fmt.Sprintf("%.4g %s", p.MBPerS, p.Bottleneck) }},
		{"seconds from the start of the window to the last batch", func(p model.Point) string { return fmt.Sprintf("%.4g", p.Seconds) }},
	} {
		fmt.Fprintf(w, "%s\n%6s", t.title, "nodes")
		for _, c := range contenders {
			fmt.Fprintf(w, " %22s", c)
		}
		fmt.Fprintln(w)
		for _, n := range nodes {
			fmt.Fprintf(w, "%6d", n)
			for _, c := range contenders {
				for _, p := range points {
					if p.Contender == c && p.Nodes == n {
						fmt.Fprintf(w, " %22s", t.value(p))
					}
				}
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
}

func newModelSynthCommand() *cobra.Command {
	var pf paramsFlags
	var wf workloadFlags
	var nodes, rpns, contenders string
	var noise float64
	var seed uint64
	cmd := &cobra.Command{
		Use:   "synth [flags]",
		Short: "Print lmdbio-bench bench result lines made from known parameters, for testing the fit",
		Long: `

Predicts every contender and consumer at every node count and learners per
node from a parameter set, multiplies each time by log-normal noise of
relative size --noise, and prints them as lmdbio-bench bench --json "result" lines
marked "synthetic": true (the bench report refuses them). lmdbio-bench model fit
reads them: fitting them must give back the parameters.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			params, err := pf.load()
			if err != nil {
				return err
			}
			w, l, consumers, err := wf.workload()
			if err != nil {
				return err
			}
			g := model.Grid{Workload: w, Loader: l, Consumers: consumers}
			if g.Nodes, err = parseCounts("nodes", nodes); err != nil {
				return err
			}
			if g.RanksPerNode, err = parseCounts("ranks-per-node", rpns); err != nil {
				return err
			}
			if g.Contenders, err = parseContenders(contenders); err != nil {
				return err
			}
			if noise < 0 || noise > 1 {
				return cli.Usagef("--noise %v: want 0 to 1", noise)
			}
			for _, o := range model.Synthesize(params.Params, g.Configs(), noise, seed) {
				if _, err := fmt.Println(string(model.BenchLine(o))); err != nil {
					return err
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	pf.register(f)
	wf.register(f, "touch,sha256")
	f.StringVar(&nodes, "nodes", "1,2,4,8", "node counts")
	f.StringVar(&rpns, "ranks-per-node", "1,2,4", "learners per node")
	f.StringVar(&contenders, "contenders", "caffe,lmm,lmm+dio,lmm+dio+prov,lmm+dio+prov+coal,default", "contenders")
	f.Float64Var(&noise, "noise", 0.02, "relative noise on every time")
	f.Uint64Var(&seed, "seed", 1, "seed of the noise")
	return cmd
}
