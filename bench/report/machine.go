package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// machineKeyOrder lists the fields a reader looks for first.
var machineKeyOrder = []string{"host", "cpu", "cores", "memory", "memory_bytes", "kernel", "os", "go", "mpi", "date"}

// machineLines describes where the runs happened: the override if given,
// else one line per distinct "machine" record.
func machineLines(ms []Machine, override string) []string {
	if override != "" {
		return []string{override}
	}
	var out []string
	for _, m := range ms {
		line := describeMachine(m.Fields)
		if s := StorageName(m.Storage); s != "" {
			line = s + ": " + line
		}
		if line != "" && !slices.Contains(out, line) {
			out = append(out, line)
		}
	}
	return out
}

// describeMachine renders fields as "key value" pairs, the known keys first.
func describeMachine(f map[string]any) string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, rj := rankOf(machineKeyOrder, keys[i]), rankOf(machineKeyOrder, keys[j])
		return ri < rj || ri == rj && keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		v := machineValue(k, f[k])
		if v == "" {
			continue
		}
		parts = append(parts, strings.TrimSuffix(k, "_bytes")+" "+v)
	}
	return strings.Join(parts, " · ")
}

// machineValue renders one field; byte counts of memory read as GiB.
func machineValue(key string, v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return fmt.Sprint(x)
	case float64:
		if strings.HasPrefix(key, "memory") && x >= 1<<20 {
			return fmt.Sprintf("%.1f GiB", x/(1<<30))
		}
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return fmt.Sprintf("%d", int64(x))
		}
		return fmt.Sprintf("%g", x)
	}
	return fmt.Sprint(v)
}
