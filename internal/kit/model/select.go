package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Selector picks observations by one of their settings, to hold them out
// of a fit and test the fit's predictions on them: "nodes=8",
// "nodes>=8", "ranks-per-node<=2", "contender=default,caffe",
// "consumer=sha256".
type Selector struct {
	key    string
	op     string // "=", ">=" or "<="
	values []string
}

// selectorKeys are the settings a Selector can test, and how to read them.
var selectorKeys = map[string]func(Observation) string{
	"nodes":          func(o Observation) string { return strconv.Itoa(o.Nodes) },
	"ranks-per-node": func(o Observation) string { return strconv.Itoa(o.RanksPerNode) },
	"contender":      func(o Observation) string { return string(o.Contender) },
	"consumer":       func(o Observation) string { return o.Consumer },
}

// ParseSelector reads KEY=V[,V...], KEY>=N or KEY<=N.
func ParseSelector(s string) (Selector, error) {
	for _, op := range []string{">=", "<=", "="} {
		key, val, ok := strings.Cut(s, op)
		if !ok {
			continue
		}
		sel := Selector{key: strings.TrimSpace(key), op: op}
		if _, known := selectorKeys[sel.key]; !known {
			return Selector{}, fmt.Errorf("selector %q: key %q: want nodes, ranks-per-node, contender or consumer", s, sel.key)
		}
		for _, v := range strings.Split(val, ",") {
			if v = strings.TrimSpace(v); v != "" {
				sel.values = append(sel.values, v)
			}
		}
		numeric := sel.key == "nodes" || sel.key == "ranks-per-node"
		switch {
		case len(sel.values) == 0:
			return Selector{}, fmt.Errorf("selector %q: no value", s)
		case op != "=" && (!numeric || len(sel.values) != 1):
			return Selector{}, fmt.Errorf("selector %q: %s takes one number, for nodes or ranks-per-node", s, op)
		}
		for i, v := range sel.values {
			switch {
			case numeric:
				if n, err := strconv.Atoi(v); err != nil || n < 1 {
					return Selector{}, fmt.Errorf("selector %q: %q is not a count", s, v)
				}
			case sel.key == "contender":
				c, err := ParseContender(v)
				if err != nil {
					return Selector{}, fmt.Errorf("selector %q: %w", s, err)
				}
				sel.values[i] = string(c)
			}
		}
		return sel, nil
	}
	return Selector{}, fmt.Errorf("selector %q: want KEY=V[,V], KEY>=N or KEY<=N", s)
}

// String writes the selector back as ParseSelector reads it.
func (s Selector) String() string { return s.key + s.op + strings.Join(s.values, ",") }

// Match reports whether o has the selected setting.
func (s Selector) Match(o Observation) bool {
	got := selectorKeys[s.key](o)
	if s.op == "=" {
		return slices.Contains(s.values, got)
	}
	g, _ := strconv.Atoi(got)
	v, _ := strconv.Atoi(s.values[0])
	if s.op == ">=" {
		return g >= v
	}
	return g <= v
}

// HoldOut splits observations into those no selector matches (to fit on)
// and those some selector matches (to predict).
func HoldOut(obs []Observation, sels []Selector) (fit, held []Observation) {
	for _, o := range obs {
		if slices.ContainsFunc(sels, func(s Selector) bool { return s.Match(o) }) {
			held = append(held, o)
		} else {
			fit = append(fit, o)
		}
	}
	return fit, held
}
