package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lmdbio/lmdbio/internal/kit/bench/stats"
)

// missing is shown where a cell was not measured.
const missing = "–"

// fmtRate formats a rate (MB/s, samples/s) to about three significant
// digits: more would only show noise on machines that swing by 2x.
func fmtRate(v float64) string {
	switch {
	case v <= 0:
		return missing
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// fmtMedian formats a summary's median, "–" when not measured.
func fmtMedian(s Summary) string {
	if s.N == 0 {
		return missing
	}
	return fmtRate(s.Median)
}

// fmtSpread formats the min–max range of s.
func fmtSpread(s Summary) string {
	if s.N == 0 {
		return missing
	}
	return fmtRate(s.Min) + "–" + fmtRate(s.Max)
}

// fmtCell formats "median (min–max)", or just the median of one round.
func fmtCell(s Summary) string {
	switch s.N {
	case 0:
		return missing
	case 1:
		return fmtRate(s.Median)
	}
	return fmtRate(s.Median) + " (" + fmtSpread(s) + ")"
}

// fmtRatio formats a ratio as a multiplier.
func fmtRatio(v float64) string {
	switch {
	case v <= 0:
		return missing
	case v >= 100:
		return fmt.Sprintf("%.0f×", v)
	case v >= 10:
		return fmt.Sprintf("%.1f×", v)
	}
	return fmt.Sprintf("%.2f×", v)
}

// fmtPaired formats a paired ratio with its 95% interval; a dash for
// fewer than two pairs, where there is no interval.
func fmtPaired(p stats.Paired) string {
	if p.N < 2 {
		return missing
	}
	bound := func(v float64) string { return strings.TrimSuffix(fmtRatio(v), "×") }
	return fmt.Sprintf("%s [%s, %s]", fmtRatio(p.GeoMean), bound(p.Low), bound(p.High))
}

// fmtPercent formats a fraction in [0, 1] as a percentage.
func fmtPercent(v float64) string {
	if v <= 0 {
		return missing
	}
	return fmt.Sprintf("%.1f %%", 100*v)
}

// timeUnit is a unit for a column of durations.
type timeUnit struct {
	name  string
	scale float64
}

// unitFor picks milliseconds unless some time reaches ten seconds: first
// batches take from milliseconds to a few seconds.
func unitFor(secs []float64) timeUnit {
	for _, s := range secs {
		if s >= 10 {
			return timeUnit{"s", 1}
		}
	}
	return timeUnit{"ms", 1000}
}

// fmtTime formats seconds in unit u to three significant digits, "–" when
// not measured: first-batch times span from milliseconds to seconds.
func fmtTime(s Summary, u timeUnit) string {
	if s.N == 0 {
		return missing
	}
	v := s.Median * u.scale
	if v <= 0 {
		return "0"
	}
	decimals := max(0, 2-int(math.Floor(math.Log10(v))))
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// fmtSeconds formats a time in seconds to three significant digits, "–"
// when not measured (0).
func fmtSeconds(v float64) string {
	if v <= 0 {
		return missing
	}
	return fmtTime(Summary{N: 1, Median: v}, timeUnit{"s", 1})
}

// plural returns "1 rank", "4 ranks".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// table is a Markdown table; right marks right-aligned (numeric) columns.
type table struct {
	header []string
	right  []bool
	rows   [][]string
}

// write renders t with padded columns so the raw file reads as a table too.
func (t *table) write(w io.Writer) {
	width := make([]int, len(t.header))
	for i, h := range t.header {
		width[i] = max(3, utf8.RuneCountInString(h))
	}
	for _, r := range t.rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString("|")
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if t.right[i] {
				b.WriteString(" " + pad + c + " |")
			} else {
				b.WriteString(" " + c + pad + " |")
			}
		}
		fmt.Fprintln(w, b.String())
	}
	line(t.header)
	sep := make([]string, len(t.header))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
		if t.right[i] {
			sep[i] = strings.Repeat("-", width[i]-1) + ":"
		}
	}
	line(sep)
	for _, r := range t.rows {
		line(r)
	}
	fmt.Fprintln(w)
}
