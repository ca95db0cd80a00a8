package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/bench/figure"
	"github.com/lmdbio/lmdbio/internal/kit/model"
	"github.com/lmdbio/lmdbio/internal/kit/schema"
	"github.com/spf13/cobra"
)

// modelFitOptions are the flags of lmdbio-bench model fit.
type modelFitOptions struct {
	params   paramsFlags
	free     string
	holdOut  []string
	walk     float64
	restarts int
	out      string
	json     bool
}

// heldOutGoal is the error within which held-out runs must be predicted.
const heldOutGoal = 0.15

// misfitRMS is the rms log error beyond which a fit explains nothing: the
// model misses the runs it was fitted to by more than a factor of 2 on
// average, which is what fixed parameters in the wrong units give.
const misfitRMS = math.Ln2

func newModelFitCommand() *cobra.Command {
	var opt modelFitOptions
	cmd := &cobra.Command{
		Use:   "fit [flags] FILE...",
		Short: "Fit the model's parameters to lmdbio-bench bench --json runs by least squares",
		Long: `

Reads lmdbio-bench bench --json lines from the files ("-" is standard input), keeps
the cold-cache "result" lines, and adjusts the free parameters (--free,
default the speeds of storage, clients and CPU) so that the predicted time of
every run matches the measured one in relative terms (Levenberg–Marquardt on
the logarithms of the parameters, from the starting set and from perturbed
ones). Layout parameters come from the starting set (--params, --set): the
storage's servers and request sizes, the cores per node, and shared_cores
when the nodes were emulated on one machine.

--hold-out KEY=V (nodes, ranks-per-node, contender, consumer; also >= and <=
for counts; repeatable) leaves matching runs out of the fit and predicts
them: fit on 1, 2 and 4 emulated hosts with --hold-out nodes>=8, and the
report says how many held-out runs were predicted within 15%, and how many
held-out configurations (runs of the same contender, nodes, learners per
node, workload and loader settings): one counts as predicted within 15%
when its median run is.

Prints the fitted parameters with their standard errors (a large one says the
runs do not constrain that parameter: fix it with --set instead), every run's
measured and predicted time, and the root-mean-square error. --out DIR writes
params.json (the fitted set, for --params) and model_fit.svg/png. --json
prints one object per line: "params", "residual" per run, "fit". A fit that
misses its own runs by more than a factor of 2 on average is printed and
written, and the command then fails (exit 2): fixed parameters in the wrong
units (rates are in bytes per second) give that.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runModelFit(opt, args) },
	}
	f := cmd.Flags()
	opt.params.register(f)
	f.StringVar(&opt.free, "free", "", "parameters to fit, comma-separated (default: "+strings.Join(model.DefaultFree, ",")+")")
	f.StringArrayVar(&opt.holdOut, "hold-out", nil, "leave runs out of the fit and predict them: KEY=V[,V], KEY>=N or KEY<=N; repeatable")
	f.Float64Var(&opt.walk, "walk-fraction", 0.01, "share of the file a cursor walk reads per byte of data (small for values on overflow pages, 1 for records inline in leaf pages)")
	f.IntVar(&opt.restarts, "restarts", 8, "extra starts from perturbed parameters")
	f.StringVar(&opt.out, "out", "", "directory to write params.json and the plot to")
	f.BoolVar(&opt.json, "json", false, "print one JSON object per line")
	return cmd
}

func runModelFit(opt modelFitOptions, files []string) error {
	start, err := opt.params.load()
	if err != nil {
		return err
	}
	var sels []model.Selector
	for _, s := range opt.holdOut {
		sel, err := model.ParseSelector(s)
		if err != nil {
			return cli.UsageError(err)
		}
		sels = append(sels, sel)
	}
	if opt.walk < 0 || opt.walk > 1 || opt.restarts < 0 {
		return cli.Usagef("--walk-fraction %v, --restarts %d: want 0 to 1 and >= 0", opt.walk, opt.restarts)
	}
	if opt.out != "" {
		if err := cli.CheckOutDir("--out", opt.out, opt.out); err != nil {
			return err
		}
	}
	obs, skipped, err := readObservations(files, opt.walk)
	if err != nil {
		return err
	}
	train, held := model.HoldOut(obs, sels)
	fo := model.FitOptions{Restarts: opt.restarts}
	if opt.free != "" {
		fo.Free = splitList(opt.free)
	}
	if len(train) == 0 {
		return cli.Usagef("no cold-cache result lines to fit on in %d file(s) (skipped: %v)", len(files), skipped)
	}
	res, err := model.Fit(train, start.Params, fo)
	if err != nil {
		if errors.Is(err, model.ErrFit) {
			return cli.UsageError(err)
		}
		return err
	}
	fitted := start
	fitted.Params, fitted.Name = res.Params, "fitted"
	fitted.Sources = append(fitted.Sources[:0:0], fmt.Sprintf("fitted by lmdbio-bench model fit to %d runs from %v", len(train), files))
	heldRes := model.Residuals(res.Params, held)
	summary := schema.Fit{Type: schema.TypeFit, Observations: len(train), Skipped: skipped, Free: res.Free, StdErr: map[string]float64{},
		RMS: res.RMS, HoldOut: opt.holdOut, HeldOut: len(held)}
	summary.HeldOutConfigs, summary.HeldOutConfigsWithin = configsWithin(heldRes)
	for k, v := range res.StdErr {
		summary.StdErr[k] = v
		if math.IsInf(v, 0) || math.IsNaN(v) {
			summary.StdErr[k] = -1
		}
	}
	var sum float64
	for _, r := range heldRes {
		if math.Abs(r.Error) <= heldOutGoal {
			summary.HeldOutWithin++
		}
		summary.HeldOutWorst = math.Max(summary.HeldOutWorst, math.Abs(r.Error))
		sum += math.Log(r.Predicted/r.Seconds) * math.Log(r.Predicted/r.Seconds)
	}
	if len(heldRes) > 0 {
		summary.HeldOutRMS = math.Sqrt(sum / float64(len(heldRes)))
	}
	for _, o := range obs {
		summary.Synthetic = summary.Synthetic || o.Synthetic
	}
	if opt.json {
		err = printFitJSON(os.Stdout, fitted, res.Residuals, heldRes, summary)
	} else {
		printFit(os.Stdout, fitted, res, heldRes, summary)
	}
	if err == nil && opt.out != "" {
		err = writeFit(opt.out, fitted, res.Residuals, heldRes, !opt.json)
	}
	if err == nil && res.RMS > misfitRMS {
		err = cli.Usagef("the fitted model misses the runs by a factor of %.3g on average: check the fixed parameters (--set, --params) and their units (bytes, bytes per second, seconds)",
			math.Exp(res.RMS))
	}
	return err
}

// configsWithin counts the configurations among rs and those whose median
// run's error is within heldOutGoal: the runs of one configuration scatter
// by the machine's noise, and the middle one stands for them.
func configsWithin(rs []model.Residual) (configs, within int) {
	errs := map[model.Config][]float64{}
	for _, r := range rs {
		errs[r.Config] = append(errs[r.Config], r.Error)
	}
	for _, e := range errs {
		sort.Float64s(e)
		mid := e[len(e)/2]
		if len(e)%2 == 0 {
			mid = (e[len(e)/2-1] + mid) / 2
		}
		if math.Abs(mid) <= heldOutGoal {
			within++
		}
	}
	return len(errs), within
}

// readObservations reads every file's bench lines; "-" is standard input.
func readObservations(files []string, walk float64) ([]model.Observation, map[string]int, error) {
	var obs []model.Observation
	skipped := map[string]int{}
	for _, name := range files {
		var r io.Reader = os.Stdin
		if name != "-" {
			f, err := os.Open(name)
			if err != nil {
				return nil, nil, cli.UsageError(err)
			}
			defer f.Close()
			// A directory opens, and fails only when read.
			if st, err := f.Stat(); err == nil && st.IsDir() {
				return nil, nil, cli.Usagef("%s: is a directory; want a file of lmdbio-bench bench --json lines", name)
			}
			r = f
		}
		got, err := model.ReadObservations(r, name, walk)
		if err != nil {
			if errors.Is(err, model.ErrInput) {
				return nil, nil, cli.UsageError(err)
			}
			return nil, nil, err
		}
		obs = append(obs, got.Observations...)
		for k, v := range got.Skipped {
			skipped[k] += v
		}
	}
	return obs, skipped, nil
}

func printFitJSON(w io.Writer, fitted model.ParamsFile, train, held []model.Residual, summary schema.Fit) error {
	if err := cli.PrintJSON(w, paramsLine(fitted)); err != nil {
		return err
	}
	for _, set := range []struct {
		name string
		rs   []model.Residual
	}{{"fit", train}, {"held-out", held}} {
		for _, r := range set.rs {
			if err := cli.PrintJSON(w, schema.Residual{Type: schema.TypeResidual, Set: set.name, HoldOut: strings.Join(summary.HoldOut, "; "),
				Source: r.Source, Contender: string(r.Contender), Nodes: r.Nodes, RanksPerNode: r.RanksPerNode,
				Consumer: r.Consumer, Stagger: r.Stagger, Direct: r.Direct, Measured: r.Seconds,
				Predicted: r.Predicted, Error: r.Error}); err != nil {
				return err
			}
		}
	}
	return cli.PrintJSON(w, summary)
}

func printFit(w io.Writer, fitted model.ParamsFile, res model.FitResult, held []model.Residual, s schema.Fit) {
	if s.Synthetic {
		fmt.Fprintln(w, "note: some runs are synthetic (lmdbio-bench model synth), not measurements")
	}
	fmt.Fprintf(w, "fitted %d parameters to %d cold-cache runs", len(s.Free), s.Observations)
	if len(s.Skipped) > 0 {
		keys := make([]string, 0, len(s.Skipped))
		for k := range s.Skipped {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprint(w, "; skipped")
		for _, k := range keys {
			fmt.Fprintf(w, " %d %s;", s.Skipped[k], k)
		}
	}
	fmt.Fprintln(w)
	printParams(w, fitted, res.StdErr)
	for _, set := range []struct {
		name string
		rs   []model.Residual
	}{{"runs fitted on", res.Residuals}, {"runs held out", held}} {
		if len(set.rs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: measured and predicted seconds\n", set.name)
		fmt.Fprintf(w, "  %-20s %5s %5s %-7s %10s %10s %8s\n", "contender", "nodes", "r/n", "consumer", "measured", "predicted", "error")
		for _, r := range set.rs {
			fmt.Fprintf(w, "  %-20s %5d %5d %-7s %10.3f %10.3f %+7.1f%%\n", r.Contender, r.Nodes, r.RanksPerNode, r.Consumer,
				r.Seconds, r.Predicted, 100*r.Error)
		}
	}
	fmt.Fprintf(w, "\nrms error (log) %.1f%% on %d runs fitted on", 100*s.RMS, s.Observations)
	if s.HeldOut > 0 {
		fmt.Fprintf(w, "; held out: %d of %d within %.0f%%, worst %.1f%%, rms %.1f%%; configurations: %d of %d within %.0f%% (median run)",
			s.HeldOutWithin, s.HeldOut, 100*heldOutGoal, 100*s.HeldOutWorst, 100*s.HeldOutRMS,
			s.HeldOutConfigsWithin, s.HeldOutConfigs, 100*heldOutGoal)
	}
	fmt.Fprintln(w)
}

// writeFit writes the fitted parameter set and the measured-vs-predicted plot.
func writeFit(dir string, fitted model.ParamsFile, train, held []model.Residual, say bool) error {
	fig, err := model.FitFigure(train, held, "model fit: measured and predicted seconds")
	if err != nil {
		return err
	}
	written, err := figure.WriteAll(dir, []figure.Figure{fig})
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "params.json")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = cli.PrintJSON(f, paramsLine(fitted))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if say {
		for _, p := range append(written, path) {
			fmt.Println("wrote", p)
		}
	}
	return err
}
