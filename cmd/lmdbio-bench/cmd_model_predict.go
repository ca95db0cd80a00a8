package main

import (
	"fmt"
	"io"
	"os"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/bench/figure"
	"github.com/lmdbio/lmdbio/internal/kit/model"
	"github.com/lmdbio/lmdbio/internal/kit/schema"
	"github.com/spf13/cobra"
)

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
		if err := cli.PrintJSON(os.Stdout, paramsLine(params)); err != nil {
			return err
		}
		for _, a := range assumptions {
			if err := cli.PrintJSON(os.Stdout, map[string]string{"type": "assumption", "text": a}); err != nil {
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
		if err := cli.PrintJSON(w, schema.Prediction{Type: schema.TypePrediction, Contender: string(p.Contender), Nodes: p.Nodes,
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
