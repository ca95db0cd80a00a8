package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// Markdown renders the report. Sections without data are left out.
func Markdown(rep *Report) []byte {
	var b bytes.Buffer
	fmt.Fprintln(&b, "# lmdbio benchmark results")
	fmt.Fprintln(&b)
	for _, m := range rep.Machine {
		fmt.Fprintf(&b, "Machine: %s  \n", m)
	}
	if len(rep.Inputs) > 0 {
		fmt.Fprintf(&b, "Inputs: %s\n", strings.Join(rep.Inputs, ", "))
	}
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "Every figure is the median over the rounds of a run; spreads are min–max over those rounds,")
	fmt.Fprintln(&b, "n is the number of rounds. MB = 10⁶ bytes delivered to the learners. Every contender is timed")
	fmt.Fprintln(&b, "from the start of its loader to its last batch (lmdbio's MPI start-up and the peers' interpreter and")
	fmt.Fprintln(&b, "imports left out: a training job pays them with any loader; the loader's start-up is shown on its own), and")
	fmt.Fprintln(&b, "only contenders that ran the same consumer share a table or a ratio. "+aboveMark+" marks a figure")
	fmt.Fprintln(&b, "above the storage's limit by more than the noise band (the larger of both spreads and 10 %):")
	fmt.Fprintln(&b, "either the limit probes missed how that contender reads, or it did not read what it delivered")
	fmt.Fprintln(&b, "from storage (a warm page cache read in place through mmap, with a consumer that does not copy).")
	fmt.Fprintln(&b)
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "Note: %s.\n", n)
	}
	if len(rep.Notes) > 0 {
		fmt.Fprintln(&b)
	}
	writeSlower(&b, rep.Slower, len(rep.Pairs)+len(rep.Peers) > 0)
	writeLimits(&b, rep.Limits)
	writeStudies(&b, rep.Studies)
	writePairs(&b, rep.Pairs)
	writePeers(&b, rep.Peers)
	writeScaling(&b, rep.Scaling)
	writeFirstBatch(&b, rep.FirstBatch)
	writeAU(&b, rep.AU, rep.AUSearches)
	writeReadAmp(&b, rep.ReadAmp)
	writeEpochs(&b, rep.Epochs)
	writeQuality(&b, rep.Quality)
	writeDecode(&b, rep.Decode)
	writeModel(&b, rep.Fits, rep.Residuals, rep.Predict)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// section starts a section: its heading, then its introduction, one
// string per line.
func section(w io.Writer, title string, intro ...string) {
	fmt.Fprintf(w, "## %s\n\n", title)
	for _, line := range intro {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
}

// aboveMark flags a figure above the storage's limit.
const aboveMark = "†"

// flagged appends aboveMark to a formatted figure when above is set.
func flagged(text string, above bool) string {
	if above {
		return text + " " + aboveMark
	}
	return text
}

func writeLimits(w io.Writer, ls []LimitRow) {
	if len(ls) == 0 {
		return
	}
	section(w, "Storage limit",
		"The data file read front to back as a tuned reader would, with every probe of the run (buffered or",
		"O_DIRECT, STREAMS×DEPTH requests in flight, request size); the limit is each round's fastest probe.",
		"One stream with one request at a time, as dd reads, is shown beside it.")
	fmt.Fprintln(w, "### Every storage · no consumer (the storage alone)")
	fmt.Fprintln(w)
	t := table{
		header: []string{"storage", "cache", "limit MB/s", "spread", "n", "fastest probe", "one stream buffered", "one stream O_DIRECT"},
		right:  []bool{false, false, true, true, true, false, true, true},
	}
	for _, l := range ls {
		t.rows = append(t.rows, []string{orDash(StorageName(l.Storage)), l.Cache,
			fmtMedian(l.Best), fmtSpread(l.Best), fmt.Sprint(l.Best.N), orDash(l.BestProbe),
			fmtMedian(l.Buffered), fmtMedian(l.Direct)})
	}
	t.write(w)
}

func writeStudies(w io.Writer, ts []StudyTable) {
	if len(ts) == 0 {
		return
	}
	section(w, "Stacked-optimisation study", "Each mode adds one optimisation to the one above it (as in LMDBIO); `default` is what users get.")
	for _, s := range ts {
		fmt.Fprintf(w, "### %s\n\n", heading(s.Group, s.Cache, plural(s.Ranks, "rank")+" on "+plural(s.Nodes, "node")))
		t := table{
			header: []string{"mode", "MB/s", "spread", "n", "samples/s", "start-up s", "× lmdb", "× lmdb paired", "× limit", "× limit paired"},
			right:  []bool{false, true, true, true, true, true, true, true, true, true},
		}
		for _, r := range s.Rows {
			t.rows = append(t.rows, []string{"`" + r.Mode + "`", flagged(fmtMedian(r.MBPerS), r.AboveLimit), fmtSpread(r.MBPerS),
				fmt.Sprint(r.MBPerS.N), fmtRate(r.SamplesPerS), fmtSeconds(r.Startup), fmtRatio(r.VsBaseline),
				fmtPaired(r.VsBaselinePaired), fmtRatio(r.VsLimit), fmtPaired(r.VsLimitPaired)})
		}
		t.write(w)
		if s.Limit > 0 {
			fmt.Fprintf(w, "Limit: %s MB/s (fastest probe, mostly %s; %s cache).\n\n", fmtRate(s.Limit), s.LimitProbe, s.Cache)
		} else {
			fmt.Fprintln(w, "No limit line for this cache state; × limit is the benchmark's own fraction_of_limit.")
			fmt.Fprintln(w)
		}
	}
}

func writePairs(w io.Writer, rows []PairRow) {
	if len(rows) == 0 {
		return
	}
	section(w, "Default ÷ `lmdb` at every rank count",
		"The ratio of the medians, and paired by round: the geometric mean of the per-round ratios with its",
		"95 % interval, which cancels the machine's drift between rounds (an interval that holds 1: equal in that run).")
	t := table{
		header: []string{"storage", "consumer", "cache", "ranks", "nodes", "ratio of medians", "paired", "pairs"},
		right:  []bool{false, false, false, true, true, true, true, true},
	}
	for _, r := range rows {
		t.rows = append(t.rows, []string{StorageName(r.Storage), orUnknown(r.Consumer), r.Cache, fmt.Sprint(r.Ranks), fmt.Sprint(r.Nodes),
			fmtRatio(r.Ratio), fmtPaired(r.Paired), fmt.Sprint(r.Paired.N)})
	}
	t.write(w)
}

func writePeers(w io.Writer, ps []PeerTable) {
	if len(ps) == 0 {
		return
	}
	section(w, "Peers",
		"Loaders users run today, in the same run, on the same dataset and with the same consumer, beside",
		"lmdbio's default mode at the same rank count. Start-up: the start of the window to the loader ready.")
	for _, p := range ps {
		def := "default mode"
		if p.Default != DefaultMode {
			def += " (`" + p.Default + "`)"
		}
		fmt.Fprintf(w, "### %s · peers vs %s\n\n", p.Title(), def)
		if !p.HasDefault {
			fmt.Fprintf(w, "No lmdbio result ran consumer %s on this storage: no ratio.\n\n", orUnknown(p.Consumer))
		}
		t := table{
			header: []string{"cache", "peer", "ranks", "peer MB/s", "spread", "n", "default MB/s", "spread", "n",
				"start-up s peer / default", "default / peer", "paired"},
			right: []bool{false, false, true, true, true, true, true, true, true, true, true, true},
		}
		for _, r := range p.Rows {
			t.rows = append(t.rows, []string{r.Cache, r.Peer, fmt.Sprint(r.Ranks),
				flagged(fmtMedian(r.PeerMB), r.PeerAbove), fmtSpread(r.PeerMB), fmt.Sprint(r.PeerMB.N),
				flagged(fmtMedian(r.Default), r.DefaultAbove), fmtSpread(r.Default), fmt.Sprint(r.Default.N),
				fmtSeconds(r.PeerStartup) + " / " + fmtSeconds(r.DefaultStartup), fmtRatio(r.Ratio), fmtPaired(r.RatioPaired)})
		}
		t.write(w)
	}
}

func writeScaling(w io.Writer, ts []ScalingTable) {
	if len(ts) == 0 {
		return
	}
	section(w, "Throughput vs ranks", "Median MB/s (min–max) delivered to all learners together.")
	for _, s := range ts {
		fmt.Fprintf(w, "### %s\n\n", heading(s.Group, s.Cache, ""))
		t := table{header: []string{"mode"}, right: []bool{false}}
		for _, n := range s.Ranks {
			t.header = append(t.header, plural(n, "rank"))
			t.right = append(t.right, true)
		}
		for _, se := range s.Series {
			row := []string{seriesName(se.Name, se.Peer)}
			for i, c := range se.Cells {
				row = append(row, flagged(fmtCell(c), se.Above[i]))
			}
			t.rows = append(t.rows, row)
		}
		t.write(w)
		if s.Limit > 0 {
			fmt.Fprintf(w, "Storage limit: %s MB/s (fastest probe, mostly %s).\n\n", fmtRate(s.Limit), s.LimitProbe)
		}
	}
}

func writeFirstBatch(w io.Writer, ts []FirstBatchTable) {
	if len(ts) == 0 {
		return
	}
	section(w, "Time to first batch vs ranks",
		"From the start of the window: slowest / median / fastest rank (medians over rounds); peers report only",
		"the slowest rank.",
		"The last column is slowest over fastest at the largest rank count: flat loaders stay near 1.")
	for _, s := range ts {
		var all []float64
		for _, se := range s.Series {
			for _, c := range se.Cells {
				all = append(all, c.Max.Median)
			}
		}
		u := unitFor(all)
		fmt.Fprintf(w, "### %s\n\n", heading(s.Group, s.Cache, "times in "+u.name))
		t := table{header: []string{"mode"}, right: []bool{false}}
		for _, n := range s.Ranks {
			t.header = append(t.header, plural(n, "rank"))
			t.right = append(t.right, true)
		}
		last := len(s.Ranks) - 1
		t.header = append(t.header, fmt.Sprintf("slowest / fastest at %d", s.Ranks[last]))
		t.right = append(t.right, true)
		for _, se := range s.Series {
			row := []string{seriesName(se.Name, se.Peer)}
			for _, c := range se.Cells {
				switch {
				case c.Max.N == 0:
					row = append(row, missing)
				case se.Peer:
					row = append(row, fmtTime(c.Max, u))
				default:
					row = append(row, fmtTime(c.Max, u)+" / "+fmtTime(c.Median, u)+" / "+fmtTime(c.Min, u))
				}
			}
			c := se.Cells[last]
			row = append(row, fmtRatio(ratio(c.Max.Median, c.Min.Median)))
			t.rows = append(t.rows, row)
		}
		t.write(w)
	}
}

func writeAU(w io.Writer, rows []AURow, searches []AUSearch) {
	if len(rows) == 0 && len(searches) == 0 {
		return
	}
	section(w, "Accelerator utilisation",
		"AU = emulated compute time / the loader's time (Open to the last batch) per learner (MLPerf Storage",
		"counts an accelerator as kept busy at ≥ 90 %).")
	if len(rows) > 0 {
		t := table{
			header: []string{"storage", "workload", "mode", "consumer", "cache", "nodes", "ranks", "samples/s", "AU mean", "AU min", "n"},
			right:  []bool{false, false, false, false, false, true, true, true, true, true, true},
		}
		for _, r := range rows {
			t.rows = append(t.rows, []string{orDash(StorageName(r.Storage)), r.Workload, "`" + r.Mode + "`", orUnknown(r.Consumer), r.Cache,
				fmt.Sprint(r.Nodes), fmt.Sprint(r.Ranks), fmtRate(r.SamplesPerS), fmtPercent(r.AUMean), fmtPercent(r.AUMin), fmt.Sprint(r.Rounds)})
		}
		t.write(w)
	}
	if len(searches) > 0 {
		fmt.Fprintln(w, "### Largest number of accelerators per node that keeps AU above the threshold")
		fmt.Fprintln(w)
		t := table{
			header: []string{"storage", "workload", "mode", "consumer", "cache", "threshold", "nodes", "accelerators per node", "ranks", "AU min"},
			right:  []bool{false, false, false, false, false, true, true, true, true, true},
		}
		for _, a := range searches {
			mode := missing
			if a.Mode != "" {
				mode = "`" + a.Mode + "`"
			}
			t.rows = append(t.rows, []string{orDash(StorageName(a.Storage)), a.Workload, mode, orUnknown(a.Consumer), orDash(a.Cache), fmtPercent(a.Threshold),
				fmt.Sprint(a.Nodes), fmt.Sprint(a.MaxAcceleratorsPerNode), fmt.Sprint(a.Ranks), fmtPercent(a.AUMin)})
		}
		t.write(w)
	}
}

// heading joins a group's title, the cache state and an extra note.
func heading(g Group, cache, extra string) string {
	parts := []string{}
	if t := g.Title(); t != "" {
		parts = append(parts, t)
	}
	parts = append(parts, cache+" cache")
	if extra != "" {
		parts = append(parts, extra)
	}
	return strings.Join(parts, " · ")
}

// seriesName marks modes as code and peers as peers.
func seriesName(name string, peer bool) string {
	if peer {
		return "peer " + name
	}
	return "`" + name + "`"
}

func orDash(s string) string {
	if s == "" {
		return missing
	}
	return s
}
