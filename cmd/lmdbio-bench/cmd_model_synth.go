package main

import (
	"fmt"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/model"
	"github.com/spf13/cobra"
)

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
