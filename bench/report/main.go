package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/lmdbio/lmdbio/internal/kit/bench/figure"
)

// Exit statuses, as for every lmdbio command.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// inputs collects repeated -in FILE[:LABEL] flags.
type inputs []input

type input struct{ path, label string }

func (in *inputs) String() string { return fmt.Sprint(*in) }

// labelRE is what a label after the last ':' may look like; anything else
// (a path with ':' in it) is taken as part of the file name.
var labelRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

func (in *inputs) Set(v string) error {
	path, label := v, ""
	if i := strings.LastIndexByte(v, ':'); i > 0 && labelRE.MatchString(v[i+1:]) {
		path, label = v[:i], v[i+1:]
	}
	if path == "" {
		return errors.New("empty file name")
	}
	*in = append(*in, input{path, label})
	return nil
}

// run is main without the process: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ins inputs
	fs.Var(&ins, "in", "`FILE[:LABEL]` of `lmdbio-bench bench --json` lines (repeatable; - is stdin); LABEL sets the storage of every line")
	out := fs.String("out", "", "`DIR` to write results.md and the plots to (created if missing)")
	machine := fs.String("machine", "", "`TEXT` describing the machine, instead of the input's machine lines")
	studyRanks := fs.Int("study-ranks", 0, "rank count of the stacked-optimisation study (default: where most modes were measured)")
	noPlots := fs.Bool("no-plots", false, "write results.md only")
	paired := fs.Bool("paired", false, "print the first input's results over the second's, per consumer, paired by round number, as one markdown table (two labelled -in, no -out)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: report -in FILE[:LABEL] [-in ...] -out DIR [-machine TEXT] [-study-ranks N] [-no-plots]")
		fmt.Fprintln(stderr, "       report -paired -in FILE:LABEL -in FILE:LABEL")
		fmt.Fprintln(stderr, "Writes results.md and plots (SVG and PNG) from `lmdbio-bench bench --json` output.")
		fmt.Fprintln(stderr, "Exit status: 0 ok, 1 could not write, 2 bad usage or bad input.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	bad := fs.NArg() > 0 || *studyRanks < 0
	if *paired {
		bad = bad || len(ins) != 2 || ins[0].label == "" || ins[1].label == "" || ins[0].label == ins[1].label || *out != ""
	} else {
		bad = bad || len(ins) == 0 || *out == ""
	}
	if bad {
		fs.Usage()
		return exitUsage
	}
	ds, err := readInputs(ins, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "report: %v\n", err)
		if errors.Is(err, ErrBadInput) || errors.Is(err, os.ErrNotExist) {
			return exitUsage
		}
		return exitFailure
	}
	if *paired {
		writePairedInputs(stdout, ds.Results, ins[0].label, ins[1].label)
		return exitOK
	}
	rep := Build(ds, Options{StudyRanks: *studyRanks, Machine: *machine})
	written, err := write(*out, rep, !*noPlots)
	for _, p := range written {
		fmt.Fprintln(stdout, p)
	}
	if err != nil {
		fmt.Fprintf(stderr, "report: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// readInputs parses every input into one dataset.
func readInputs(ins inputs, stdin io.Reader) (*Dataset, error) {
	ds := &Dataset{}
	for _, in := range ins {
		name := filepath.Base(in.path)
		if in.label != "" {
			ds.Inputs = append(ds.Inputs, fmt.Sprintf("%s (storage %s)", name, in.label))
		} else {
			ds.Inputs = append(ds.Inputs, name)
		}
		if in.path == "-" {
			if err := Parse(stdin, "stdin", in.label, ds); err != nil {
				return nil, err
			}
			continue
		}
		f, err := os.Open(in.path)
		if err != nil {
			return nil, err
		}
		err = Parse(f, in.path, in.label, ds)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// write writes results.md and, if plots, every figure to dir; it returns
// the paths written.
func write(dir string, rep *Report, plots bool) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	md := filepath.Join(dir, "results.md")
	if err := os.WriteFile(md, append(Markdown(rep), '\n'), 0o644); err != nil {
		return nil, err
	}
	written := []string{md}
	if !plots {
		return written, nil
	}
	figs, err := Figures(rep)
	if err != nil {
		return written, err
	}
	paths, err := figure.WriteAll(dir, figs)
	return append(written, paths...), err
}
