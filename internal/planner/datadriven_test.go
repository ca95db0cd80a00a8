package planner

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/*.txt")

// A testdata file is a sequence of cases. Each case is a command line with
// key=value arguments, then input lines ("name: values"), then a line
// "----", then the expected output up to a blank line or the end of the
// file. Lines starting with # before a command are comments.
//
//	plan maxspan=16MiB maxgap=0 align=0
//	extents: 0+100 100+50 3x10
//	records: 0 1
//	----
//	span 0+150
//	  r0 @0+100
//	...
//
// Extents are off+len, or NxL for N records of L bytes each that follow the
// previous extent back to back (NxL/G leaves G bytes between them).

// testCase is one parsed case; head keeps its input lines verbatim so that
// -update can write the file back unchanged but for the output.
type testCase struct {
	file   string
	line   int
	head   []string
	cmd    string
	args   map[string]string
	inputs map[string]string
	want   []string
}

func TestDataDriven(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			cases, err := readCases(file)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			for _, c := range cases {
				got, err := runCase(c)
				if err != nil {
					t.Fatalf("%s:%d: %v", c.file, c.line, err)
				}
				if *update {
					for _, l := range c.head {
						out.WriteString(l + "\n")
					}
					out.WriteString("----\n" + got + "\n")
					continue
				}
				if want := strings.Join(c.want, "\n") + "\n"; got != want {
					t.Errorf("%s:%d: %s\ngot:\n%swant:\n%s", c.file, c.line, c.cmd, got, want)
				}
			}
			if *update {
				if err := os.WriteFile(file, []byte(strings.TrimSuffix(out.String(), "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func readCases(file string) ([]testCase, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cases []testCase
	var c *testCase
	inOutput := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case inOutput && line == "":
			inOutput, c = false, nil
		case inOutput:
			cases[len(cases)-1].want = append(cases[len(cases)-1].want, line)
		case line == "----":
			if c == nil || c.cmd == "" {
				return nil, fmt.Errorf("%s:%d: ---- without a command", file, n)
			}
			cases = append(cases, *c)
			inOutput = true
		default:
			if c == nil {
				c = &testCase{file: file, args: map[string]string{}, inputs: map[string]string{}}
			}
			c.head = append(c.head, line)
			trimmed := strings.TrimSpace(line)
			switch {
			case trimmed == "" || strings.HasPrefix(trimmed, "#"):
			case c.cmd == "":
				fields := strings.Fields(trimmed)
				c.cmd, c.line = fields[0], n
				for _, kv := range fields[1:] {
					k, v, ok := strings.Cut(kv, "=")
					if !ok {
						return nil, fmt.Errorf("%s:%d: argument %q is not key=value", file, n, kv)
					}
					c.args[k] = v
				}
			default:
				k, v, ok := strings.Cut(trimmed, ":")
				if !ok {
					return nil, fmt.Errorf("%s:%d: input %q is not name: values", file, n, trimmed)
				}
				c.inputs[k] = strings.TrimSpace(v)
			}
		}
	}
	if c != nil && !inOutput && c.cmd != "" {
		return nil, fmt.Errorf("%s: case at line %d has no ----", file, c.line)
	}
	return cases, sc.Err()
}

func runCase(c testCase) (string, error) {
	switch c.cmd {
	case "plan":
		return runPlan(c)
	case "windows":
		return runWindows(c)
	}
	return "", fmt.Errorf("unknown command %q", c.cmd)
}

// extentList implements Extents for tests.
type extentList [][2]int64

func (e extentList) Extent(i int) (int64, int64) { return e[i][0], e[i][1] }

func runPlan(c testCase) (string, error) {
	var opt Options
	for k, v := range c.args {
		n, err := parseSize(v)
		if err != nil {
			return "", err
		}
		switch k {
		case "maxspan":
			opt.MaxSpan = n
		case "maxgap":
			opt.MaxGap = n
		case "align":
			opt.Align = n
		default:
			return "", fmt.Errorf("unknown option %q", k)
		}
	}
	ext, err := parseExtents(c.inputs["extents"])
	if err != nil {
		return "", err
	}
	var records []int
	if s, ok := c.inputs["records"]; ok && s != "all" {
		for _, f := range strings.Fields(s) {
			r, err := strconv.Atoi(f)
			if err != nil || r < 0 || r >= len(ext) {
				return "", fmt.Errorf("bad record %q", f)
			}
			records = append(records, r)
		}
	} else {
		for i := range ext {
			records = append(records, i)
		}
	}
	spans := Plan(ext, records, opt)
	if err := Verify(ext, records, opt, spans); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, s := range spans {
		fmt.Fprintf(&b, "span %d+%d\n", s.Offset, s.Length)
		for _, p := range s.Records {
			fmt.Fprintf(&b, "  r%d @%d+%d\n", p.Record, p.Offset, p.Length)
		}
	}
	st := Summarize(spans)
	fmt.Fprintf(&b, "reads=%d records=%d read=%d wanted=%d amp=%.2f\n",
		st.Reads, st.Records, st.BytesRead, st.BytesWanted, st.Amplification())
	return b.String(), nil
}

func runWindows(c testCase) (string, error) {
	target, err := parseSize(c.args["target"])
	if err != nil {
		return "", err
	}
	var batches []int64
	for _, f := range strings.Fields(c.inputs["batches"]) {
		n, err := parseSize(f)
		if err != nil {
			return "", err
		}
		batches = append(batches, n)
	}
	var b strings.Builder
	for _, w := range Windows(batches, target) {
		var sum int64
		for _, n := range batches[w[0]:w[1]] {
			sum += n
		}
		fmt.Fprintf(&b, "[%d,%d) %d\n", w[0], w[1], sum)
	}
	if b.Len() == 0 {
		b.WriteString("no windows\n")
	}
	return b.String(), nil
}

// parseExtents reads "off+len" and "NxL[/G]" tokens.
func parseExtents(s string) (extentList, error) {
	var ext extentList
	var next int64
	for _, f := range strings.Fields(s) {
		if off, n, ok := strings.Cut(f, "+"); ok {
			o, err1 := parseSize(off)
			l, err2 := parseSize(n)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("bad extent %q", f)
			}
			ext = append(ext, [2]int64{o, l})
			next = o + l
			continue
		}
		count, rest, ok := strings.Cut(f, "x")
		if !ok {
			return nil, fmt.Errorf("bad extent %q", f)
		}
		size, gapStr, _ := strings.Cut(rest, "/")
		cnt, err := strconv.Atoi(count)
		if err != nil {
			return nil, fmt.Errorf("bad extent %q", f)
		}
		l, err := parseSize(size)
		if err != nil {
			return nil, fmt.Errorf("bad extent %q", f)
		}
		var gap int64
		if gapStr != "" {
			if gap, err = parseSize(gapStr); err != nil {
				return nil, fmt.Errorf("bad extent %q", f)
			}
		}
		for i := 0; i < cnt; i++ {
			if i > 0 || len(ext) > 0 {
				next += gap
			}
			ext = append(ext, [2]int64{next, l})
			next += l
		}
	}
	return ext, nil
}

// parseSize reads an integer with an optional KiB or MiB suffix.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "KiB"):
		s, mult = strings.TrimSuffix(s, "KiB"), 1<<10
	case strings.HasSuffix(s, "MiB"):
		s, mult = strings.TrimSuffix(s, "MiB"), 1<<20
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}
