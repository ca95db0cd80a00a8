package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// contenders lists lmdbio's contenders: every mode of modes with every
// shuffle it can read in, every chunk or global shuffle with every
// locality, the modes that stagger with every stagger. Warnings for what is
// left out go to warn.
func (o *benchOptions) contenders(modes string, format source.Format, warn *[]string) ([]benchMode, error) {
	base, err := parseBenchModes(modes)
	if err != nil {
		return nil, err
	}
	shuffles, err := parseShuffles(o.shuffles)
	if err != nil {
		return nil, err
	}
	localities, err := parseLocalities(o.localities)
	if err != nil {
		return nil, err
	}
	staggers, err := parseStaggers(o.staggers)
	if err != nil {
		return nil, err
	}
	staggerVaries := len(staggers) > 1 || staggers[0] != loader.DefaultStagger
	var out []benchMode
	add := func(m benchMode) {
		m.label = m.name
		if m.shuffle != sampler.None {
			m.label += "/" + m.shuffle.String()
		}
		if m.shuffle.WorldIndependent() && m.locality == loader.Off {
			m.label += "/locality-off"
		}
		if m.mode.STAG && staggerVaries {
			m.label += fmt.Sprintf("/stagger-%d", m.stagger)
		}
		if !slices.ContainsFunc(out, func(have benchMode) bool { return have.label == m.label }) {
			out = append(out, m)
		}
	}
	var cursor []string
	for _, m := range base {
		if !m.mode.PROV {
			if format == source.HDF5 {
				return nil, cli.Usagef("--modes %s: HDF5 files are read in the modes with an index (%s)", m.name, benchModesHDF5)
			}
			if shuffles[0] != sampler.None || len(shuffles) > 1 {
				cursor = append(cursor, m.name)
			}
			add(benchMode{name: m.name, mode: m.mode, stagger: loader.DefaultStagger})
			continue
		}
		for _, sh := range shuffles {
			locs := localities
			if !sh.WorldIndependent() {
				locs = []loader.Switch{loader.On} // locality has nothing to choose
			}
			for _, loc := range locs {
				stags := staggers
				if !m.mode.STAG {
					stags = []int{loader.DefaultStagger}
				}
				for _, st := range stags {
					add(benchMode{name: m.name, mode: m.mode, shuffle: sh, locality: loc, stagger: st})
				}
			}
		}
	}
	if len(cursor) > 0 {
		*warn = append(*warn, fmt.Sprintf("--shuffle: %s read by cursor, in the database's order: measured without a shuffle",
			strings.Join(cursor, ", ")))
	}
	return out, nil
}

// parseShuffles reads bench's --shuffle: distinct shuffle names, in order.
func parseShuffles(s string) ([]sampler.Shuffle, error) {
	return parseDistinct("shuffle", s, func(f string) (sampler.Shuffle, error) {
		sh, err := sampler.ParseShuffle(f)
		if err != nil {
			return sh, cli.Usagef("--shuffle: %v", err)
		}
		return sh, nil
	})
}

// parseLocalities reads bench's --locality: on, off or both.
func parseLocalities(s string) ([]loader.Switch, error) {
	return parseDistinct("locality", s, func(f string) (loader.Switch, error) {
		sw, err := loader.ParseSwitch(f)
		if err != nil {
			return sw, cli.Usagef("--locality %v", err)
		}
		return sw, nil
	})
}

// parseStaggers reads bench's --stagger: distinct counts >= 1, in order.
func parseStaggers(s string) ([]int, error) {
	return parseDistinct("stagger", s, func(f string) (int, error) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return 0, cli.Usagef("--stagger %q: want counts >= 1, comma-separated", s)
		}
		return n, nil
	})
}

// parseDistinct reads a comma list of flag: the distinct values parse
// makes of its items, in order; at least one.
func parseDistinct[T comparable](flag, s string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, f := range splitList(s) {
		v, err := parse(f)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, cli.Usagef("--%s: name at least one value", flag)
	}
	return out, nil
}

// singleBenchMode is the one contender of a command that measures the
// loader with its own options (lmdbio-bench stall): named after the mode.
func singleBenchMode(name string, lopt loader.Options) benchMode {
	return benchMode{name: name, mode: lopt.Mode, shuffle: lopt.Shuffle, locality: lopt.Locality, stagger: lopt.Stagger, label: name}
}
