package bench

import (
	"fmt"
	"strings"
	"time"
)

// Workload emulates a training job's accelerators the way DLIO and MLPerf
// Storage do: after every batch the learner "computes" for a fixed time (it
// sleeps), and the storage system passes if the accelerators stay busy.
type Workload struct {
	Name      string
	Batch     int           // records per batch the workload trains with
	Compute   time.Duration // emulated accelerator time per batch
	Threshold float64       // least accelerator utilisation (AU) that passes
	Record    int64         // typical record size in bytes, for a dataset that matches
}

// Workloads are the DLIO / MLPerf Storage workloads, by name.
var Workloads = map[string]Workload{
	"resnet50":  {Name: "resnet50", Batch: 64, Compute: 103 * time.Millisecond, Threshold: 0.9, Record: 115_000},
	"unet3d":    {Name: "unet3d", Batch: 7, Compute: 323 * time.Millisecond, Threshold: 0.9, Record: 146_000_000},
	"cosmoflow": {Name: "cosmoflow", Batch: 1, Compute: 3500 * time.Microsecond, Threshold: 0.7, Record: 2_800_000},
}

// WorkloadNames lists the names ParseWorkload accepts besides "none".
func WorkloadNames() []string { return []string{"resnet50", "unet3d", "cosmoflow"} }

// ParseWorkload reads a workload name; "none" and "" give the zero Workload
// (no emulated compute).
func ParseWorkload(name string) (Workload, error) {
	if name == "" || name == "none" {
		return Workload{}, nil
	}
	w, ok := Workloads[name]
	if !ok {
		return Workload{}, fmt.Errorf("workload %q: want none, %s", name, strings.Join(WorkloadNames(), ", "))
	}
	return w, nil
}

// Enabled reports whether the workload emulates compute.
func (w Workload) Enabled() bool { return w.Compute > 0 }

// AU is accelerator utilisation: the fraction of a learner's wall time its
// accelerator spent computing. 0 when no time passed.
func AU(compute, wall float64) float64 {
	if wall <= 0 {
		return 0
	}
	return compute / wall
}

// AUPoint is one measurement of a workload: how many emulated accelerators
// ran per node, and the utilisation of the least busy one.
type AUPoint struct {
	PerNode int
	Nodes   int
	AUMin   float64
}

// MaxAccelerators returns the point with the most emulated accelerators per
// node whose AUMin is at least threshold (the MLPerf Storage question: how
// many accelerators can this storage keep busy). ok is false when no point
// passes. Among passing points with the same PerNode, the one with more
// nodes wins.
func MaxAccelerators(points []AUPoint, threshold float64) (best AUPoint, ok bool) {
	for _, p := range points {
		if p.AUMin < threshold {
			continue
		}
		if !ok || p.PerNode > best.PerNode || (p.PerNode == best.PerNode && p.Nodes > best.Nodes) {
			best, ok = p, true
		}
	}
	return best, ok
}
