package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"
)

func writeEpochs(w io.Writer, ts []EpochTable) {
	if len(ts) == 0 {
		return
	}
	section(w, "Shuffled epochs",
		"Every epoch of the multi-epoch runs: its share of the window (from the end of the epoch before, the",
		"first from the last learner ready), the bytes read from storage and over the data file (read",
		"amplification), the bytes exchanged between nodes, the share of records served from the node caches",
		"and the most any learner waited for data. × none is the epoch's time over the unshuffled default",
		"mode's. ᵏ: storage bytes as the kernel counted them for the processes (mmap readers, peers; file",
		"systems in user space report none), not the loader's own count.")
	for _, t := range ts {
		fmt.Fprintf(w, "### %s\n\n", heading(t.Group, t.Cache, fmt.Sprintf("%s on %s, %d epochs", plural(t.Ranks, "rank"),
			plural(t.Nodes, "node"), t.Epochs)))
		tab := table{
			header: []string{"contender", "epoch", "seconds", "spread", "n", "× none", "storage GB", "× file", "exchange GB",
				"cache hits", "stall s"},
			right: []bool{false, true, true, true, true, true, true, true, true, true, true},
		}
		for _, r := range t.Rows {
			k := ""
			if r.Kernel {
				k = "ᵏ"
			}
			tab.rows = append(tab.rows, []string{seriesName(r.Contender, r.Peer), fmt.Sprint(r.Epoch + 1),
				fmtSeconds(r.Seconds.Median), fmtSecondsSpread(r.Seconds), fmt.Sprint(r.Seconds.N), fmtRatio(r.VsNone),
				fmtGB(r.Storage) + k, fmtAmp(r.ReadAmp) + k, fmtGB(r.Exchange), fmtShare(r.CacheHits), fmtSeconds(r.Stall.Median)})
		}
		tab.write(w)
	}
}

func writeReadAmp(w io.Writer, ts []ReadAmpTable) {
	if len(ts) == 0 {
		return
	}
	section(w, "Read amplification",
		"Bytes read from storage over the data file's size, cold cache, one epoch; median over rounds. ᵏ: the",
		"kernel's count for the processes (block input), which file systems in user space (the emulated PFS)",
		"do not report: there the emulator's own counters (pfs-stats) say what reached storage.")
	for _, t := range ts {
		fmt.Fprintf(w, "### %s · cold cache\n\n", orDash(StorageName(t.Storage)))
		tab := table{header: []string{"contender"}, right: []bool{false}}
		for _, n := range t.Ranks {
			tab.header = append(tab.header, plural(n, "rank"))
			tab.right = append(tab.right, true)
		}
		for _, r := range t.Rows {
			row := []string{seriesName(r.Contender, r.Peer)}
			for _, c := range r.Cells {
				cell := fmtAmp(c)
				if r.Kernel && c.N > 0 {
					cell += "ᵏ"
				}
				row = append(row, cell)
			}
			tab.rows = append(tab.rows, row)
		}
		tab.write(w)
	}
}

func writeDecode(w io.Writer, rows []DecodeRow) {
	if len(rows) == 0 {
		return
	}
	section(w, "HDF5: storage or decode",
		"Chunked HDF5 files are read as stored and decoded by the node readers' decoders (a pool of goroutines,",
		"one per core). First epoch, cold cache. The storage allows its limit times the bytes delivered per",
		"byte read; the decoders allow their rate per core times the cores. The lower bounds the loader; the",
		"decoders' share is their time over the epoch's time on all cores (with learners on the same cores).")
	tab := table{
		header: []string{"storage", "contender", "consumer", "ranks", "delivered MB/s", "decode MB/s per core", "cores",
			"decoded / read", "storage allows", "decoders allow", "decoders' share", "bound by"},
		right: []bool{false, false, false, true, true, true, true, true, true, true, true, false},
	}
	for _, r := range rows {
		tab.rows = append(tab.rows, []string{orDash(StorageName(r.Storage)), "`" + r.Contender + "`", r.Consumer, fmt.Sprint(r.Ranks),
			fmtMedian(r.Delivered), fmtMedian(r.DecodePerCore), fmt.Sprint(r.Cores), fmtRatio(r.Expansion),
			fmtRate(r.StorageBound), fmtRate(r.DecodeBound), fmtPercent(r.DecodeShare), orDash(r.Bound)})
	}
	tab.write(w)
}

func writeQuality(w io.Writer, qs []Quality) {
	if len(qs) == 0 {
		return
	}
	q0 := qs[0]
	fmt.Fprintln(w, "## Shuffle quality")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Computed by `lmdbio-bench shuffle-quality` from the loader's sampler and assignment (no data read): %d records,\n", q0.Records)
	fmt.Fprintf(w, "%d nodes, %d learners, global batch %d, %s. Same batch: how often two records adjacent in the file\n",
		q0.Nodes, q0.Learners, q0.GlobalBatch, plural(q0.Epochs, "epoch"))
	fmt.Fprintln(w, "land in the same global batch; displacement: the mean distance between a record's place in the file and")
	fmt.Fprintln(w, "in the epoch's order, as a share of the records; next epoch: of the pairs in one global batch, the share")
	fmt.Fprintln(w, "together again in the next epoch; × ideal against a uniform random permutation. Cross-node: the share")
	fmt.Fprintln(w, "of records a learner on another node than their reader receives (what the exchange moves). Locality")
	fmt.Fprintln(w, "never changes the global batches, only who receives which record.")
	fmt.Fprintln(w)
	tab := table{
		header: []string{"shuffle", "locality", "same batch", "× ideal", "displacement", "× ideal", "next epoch", "cross-node"},
		right:  []bool{false, false, true, true, true, true, true, true},
	}
	for _, q := range qs {
		tab.rows = append(tab.rows, []string{"`" + q.Shuffle + "`", q.Locality, fmt.Sprintf("%.4f", q.SameBatch),
			fmtRatio(ratio(q.SameBatch, q.SameBatchIdeal)), fmt.Sprintf("%.3f", q.Displacement),
			fmtRatio(ratio(q.Displacement, q.DisplacementIdeal)), fmt.Sprintf("%.4f", q.SameBatchNextEpoch),
			fmt.Sprintf("%.3f", q.CrossNode)})
	}
	tab.write(w)
	fmt.Fprintf(w, "Ideal: same batch %.4f, displacement %.3f.\n\n", q0.SameBatchIdeal, q0.DisplacementIdeal)
}

func writeModel(w io.Writer, fits []Fit, rs []Residual, p PredictionTable) {
	if len(fits) == 0 && len(rs) == 0 && len(p.Contenders) == 0 {
		return
	}
	fmt.Fprintln(w, "## Model")
	fmt.Fprintln(w)
	configs, within := 0, 0
	for _, f := range fits {
		synthetic := ""
		if f.Synthetic {
			synthetic = " (some runs synthetic)"
		}
		fmt.Fprintf(w, "`lmdbio-bench model fit` holding out %s: %d runs fitted%s, free parameters %v, rms error %.1f %%; held out %d runs, %d within\n",
			holdOutName(strings.Join(f.HoldOut, "; ")), f.Observations, synthetic, f.Free, 100*f.RMS, f.HeldOut, f.HeldOutWithin)
		fmt.Fprintf(w, "15 %%, worst %.1f %%; %d held-out configurations, the median run of %d within 15 %%.\n\n",
			100*f.HeldOutWorst, f.HeldOutConfigs, f.HeldOutConfigsWithin)
		configs += f.HeldOutConfigs
		within += f.HeldOutConfigsWithin
	}
	if len(fits) > 1 {
		fmt.Fprintf(w, "Over the %d fits: %d held-out configurations, %d predicted within 15 %% (median run).\n\n", len(fits), configs, within)
	}
	if held := filter(rs, func(r Residual) bool { return r.Set == "held-out" }); len(held) > 0 {
		fmt.Fprintln(w, "### Held-out runs: measured and predicted seconds")
		fmt.Fprintln(w)
		tab := table{header: []string{"held out", "contender", "nodes", "ranks per node", "stagger", "consumer", "run", "measured s", "predicted s", "error"},
			right: []bool{false, false, true, true, true, false, false, true, true, true}}
		for _, r := range held {
			tab.rows = append(tab.rows, []string{holdOutName(r.HoldOut), "`" + r.Contender + "`", fmt.Sprint(r.Nodes), fmt.Sprint(r.RanksPerNode),
				orDash(stagger(r.Stagger)), r.Consumer, filepath.Base(r.Source), fmtSeconds(r.Measured), fmtSeconds(r.Predicted),
				fmt.Sprintf("%+.1f %%", 100*r.Error)})
		}
		tab.write(w)
	}
	if len(p.Contenders) > 0 {
		fmt.Fprintf(w, "### `lmdbio-bench model predict`: MB/s delivered, %d learners per node\n\n", p.RanksPerNode)
		tab := table{header: []string{"contender"}, right: []bool{false}}
		for _, n := range p.Nodes {
			tab.header = append(tab.header, plural(n, "node"))
			tab.right = append(tab.right, true)
		}
		tab.header = append(tab.header, fmt.Sprintf("bound at %d", p.Nodes[len(p.Nodes)-1]))
		tab.right = append(tab.right, false)
		names := append([]string(nil), p.Contenders...)
		sort.SliceStable(names, func(i, j int) bool { return contenderLess(names[i], false, names[j], false) })
		for _, c := range names {
			row := []string{"`" + c + "`"}
			for _, v := range p.MBPerS[c] {
				row = append(row, fmtRate(v))
			}
			tab.rows = append(tab.rows, append(row, orDash(p.Bottleneck[c])))
		}
		tab.write(w)
		fmt.Fprintln(w, "The model's figures, not measurements; `lmdbio-bench model params` lists every assumption behind them.")
		fmt.Fprintln(w)
	}
}

// holdOutName names a fit's hold-out for the report (lines of older fits
// do not say it).
func holdOutName(h string) string {
	if h == "" {
		return "(not recorded)"
	}
	return "`" + h + "`"
}

// stagger is a run's stagger for the report, empty when not recorded.
func stagger(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

// fmtGB formats a median in GB.
func fmtGB(s Summary) string {
	if s.N == 0 {
		return missing
	}
	return fmt.Sprintf("%.3f", s.Median)
}

// fmtAmp formats a read amplification (0 stays 0: nothing read).
func fmtAmp(s Summary) string {
	if s.N == 0 {
		return missing
	}
	return fmt.Sprintf("%.2f", s.Median)
}

// fmtShare formats a fraction as a whole percentage (0 stays 0 %).
func fmtShare(s Summary) string {
	if s.N == 0 {
		return missing
	}
	return fmt.Sprintf("%.0f %%", 100*s.Median)
}

// fmtSecondsSpread formats the min–max range of a time in seconds.
func fmtSecondsSpread(s Summary) string {
	if s.N < 2 || math.IsNaN(s.Min) {
		return missing
	}
	return fmtSeconds(s.Min) + "–" + fmtSeconds(s.Max)
}
