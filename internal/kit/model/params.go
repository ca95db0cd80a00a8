package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Params are the machine's and the storage's parameters. Rates are in
// bytes per second, times in seconds, sizes in bytes. The zero value is not
// usable: start from Lustre() or a file written by Fit.
type Params struct {
	// Storage servers (OSTs) the dataset is striped over. Not fitted: it
	// is a property of the file's layout.
	Servers float64 `json:"servers"`
	// ServerBandwidth is what one server streams to clients.
	ServerBandwidth float64 `json:"server_bandwidth"`
	// ServerOverhead is the time a server spends on one request besides
	// moving its bytes: seek, lock, RPC processing. It is what makes many
	// small requests slower than few large ones.
	ServerOverhead float64 `json:"server_overhead_s"`
	// Contention is the contention curve: every concurrent stream a server
	// serves beyond the first adds this fraction of ServerOverhead to each
	// of its requests (interleaved streams break the servers' sequential
	// access and contend for locks).
	Contention float64 `json:"contention"`
	// Latency is the time one request takes besides the server's service:
	// the network round trip and the client's RPC path.
	Latency float64 `json:"latency_s"`
	// Readahead is the size of the requests page faults and buffered reads
	// send to storage: the client readahead window, or the RPC size when
	// the client splits readahead into RPCs.
	Readahead float64 `json:"readahead"`
	// MaxRequest is the largest request a direct read is split into.
	MaxRequest float64 `json:"max_request"`
	// InFlight is how many requests one reading stream keeps in flight
	// (asynchronous readahead pipelining, RPCs in flight).
	InFlight float64 `json:"in_flight"`

	// NodeRead is the most one node's client receives from storage.
	NodeRead float64 `json:"node_read"`
	// Cores per node that learners and readers run on. Not fitted.
	Cores float64 `json:"cores"`
	// SharedCores, when positive, is the number of cores all nodes share:
	// nodes emulated on one machine compete for its cores. 0 for real
	// nodes. Not fitted.
	SharedCores float64 `json:"shared_cores"`
	// MemCopy is one core's memory copy rate (node reader into shared
	// memory, page cache into the arena).
	MemCopy float64 `json:"mem_copy"`
	// CursorStep is the time to step an LMDB cursor over one record, as
	// readers without an index do to find their records.
	CursorStep float64 `json:"cursor_step_s"`
	// TouchRate and SHA256Rate are one core's rate of the consumers.
	TouchRate  float64 `json:"touch_rate"`
	SHA256Rate float64 `json:"sha256_rate"`
	// Startup is the time from a learner's process start to its loader
	// being ready.
	Startup float64 `json:"startup_s"`
	// ProcessCPU is the CPU time one learner process spends starting (the
	// runtime, MPI's initialisation, opening the dataset and mapping shared
	// memory). The processes of a node start at once on its cores, so it
	// adds to Startup by the processes per core; where nodes share one
	// machine's cores, by all nodes' processes per shared core.
	ProcessCPU float64 `json:"process_cpu_s"`

	// NetBandwidth and NetLatency are one node's network for the exchange
	// of the shuffling cache: bytes per second and seconds per message.
	NetBandwidth float64 `json:"net_bandwidth"`
	NetLatency   float64 `json:"net_latency_s"`
	// Locality is the fraction of the samples that would cross nodes in a
	// uniform shuffle that locality-aware assignment keeps on their node.
	Locality float64 `json:"locality"`
}

// param names a field of Params for fitting and for errors.
type param struct {
	name string
	get  func(*Params) *float64
	// fixed parameters describe the layout, not the machine's speed: they
	// are never fitted.
	fixed bool
	// fraction parameters lie in [0, 1).
	fraction bool
	// zero is allowed (it switches the parameter off).
	zero bool
}

// params lists every field of Params by its JSON name.
var params = []param{
	{name: "servers", get: func(p *Params) *float64 { return &p.Servers }, fixed: true},
	{name: "server_bandwidth", get: func(p *Params) *float64 { return &p.ServerBandwidth }},
	{name: "server_overhead_s", get: func(p *Params) *float64 { return &p.ServerOverhead }},
	{name: "contention", get: func(p *Params) *float64 { return &p.Contention }},
	{name: "latency_s", get: func(p *Params) *float64 { return &p.Latency }},
	{name: "readahead", get: func(p *Params) *float64 { return &p.Readahead }},
	{name: "max_request", get: func(p *Params) *float64 { return &p.MaxRequest }},
	{name: "in_flight", get: func(p *Params) *float64 { return &p.InFlight }},
	{name: "node_read", get: func(p *Params) *float64 { return &p.NodeRead }},
	{name: "cores", get: func(p *Params) *float64 { return &p.Cores }, fixed: true},
	{name: "shared_cores", get: func(p *Params) *float64 { return &p.SharedCores }, fixed: true, zero: true},
	{name: "mem_copy", get: func(p *Params) *float64 { return &p.MemCopy }},
	{name: "cursor_step_s", get: func(p *Params) *float64 { return &p.CursorStep }},
	{name: "touch_rate", get: func(p *Params) *float64 { return &p.TouchRate }},
	{name: "sha256_rate", get: func(p *Params) *float64 { return &p.SHA256Rate }},
	{name: "startup_s", get: func(p *Params) *float64 { return &p.Startup }},
	{name: "process_cpu_s", get: func(p *Params) *float64 { return &p.ProcessCPU }},
	{name: "net_bandwidth", get: func(p *Params) *float64 { return &p.NetBandwidth }},
	{name: "net_latency_s", get: func(p *Params) *float64 { return &p.NetLatency }},
	{name: "locality", get: func(p *Params) *float64 { return &p.Locality }, fraction: true},
}

// ErrParams marks parameters that cannot describe a machine.
var ErrParams = errors.New("bad model parameters")

// ParamNames lists the parameters' names, as in JSON and --free.
func ParamNames() []string {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.name
	}
	return names
}

// lookup finds a parameter by name.
func lookup(name string) (param, bool) {
	for _, p := range params {
		if p.name == name {
			return p, true
		}
	}
	return param{}, false
}

// Get returns the parameter called name.
func (p Params) Get(name string) (float64, error) {
	f, ok := lookup(name)
	if !ok {
		return 0, fmt.Errorf("model: no parameter %q (want one of %s)", name, strings.Join(ParamNames(), ", "))
	}
	return *f.get(&p), nil
}

// Validate checks that every parameter is finite and in range: positive
// rates, sizes and counts, non-negative times and contention, a locality
// in [0, 1).
func (p Params) Validate() error {
	for _, f := range params {
		v := *f.get(&p)
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("model: %s = %v: %w", f.name, v, ErrParams)
		case f.fraction && (v < 0 || v >= 1):
			return fmt.Errorf("model: %s = %v, want 0 <= %s < 1: %w", f.name, v, f.name, ErrParams)
		case strings.HasSuffix(f.name, "_s") || f.name == "contention" || f.zero:
			if v < 0 {
				return fmt.Errorf("model: %s = %v, want >= 0: %w", f.name, v, ErrParams)
			}
		case !f.fraction && v <= 0:
			return fmt.Errorf("model: %s = %v, want > 0: %w", f.name, v, ErrParams)
		}
	}
	return nil
}

// ParamsFile is the JSON form of a parameter set: the values, and the
// sources and assumptions behind them.
type ParamsFile struct {
	// Type is "params" when the set is one line of a --json output; it may
	// be left out of a file.
	Type string `json:"type,omitempty"`
	Params
	Name        string   `json:"name,omitempty"`
	Sources     []string `json:"sources,omitempty"`
	Assumptions []string `json:"assumptions,omitempty"`
}

// ReadParams decodes a parameter file and validates it. Unknown fields are
// errors: a misspelt parameter would otherwise keep its zero value.
func ReadParams(r io.Reader) (ParamsFile, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f ParamsFile
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("model: parameters: %w: %w", err, ErrParams)
	}
	if f.Type != "" && f.Type != "params" {
		return f, fmt.Errorf("model: parameters: a %q line, not params: %w", f.Type, ErrParams)
	}
	if err := f.Validate(); err != nil {
		return f, err
	}
	return f, nil
}

// Set sets the parameter called name.
func (p *Params) Set(name string, v float64) error {
	f, ok := lookup(name)
	if !ok {
		return fmt.Errorf("model: no parameter %q (want one of %s)", name, strings.Join(ParamNames(), ", "))
	}
	*f.get(p) = v
	return nil
}

// Describe lists the parameters as "name value" lines, in a stable order.
func (p Params) Describe() []string {
	names := ParamNames()
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, n := range names {
		v, _ := p.Get(n)
		out = append(out, fmt.Sprintf("%s %s", n, formatValue(n, v)))
	}
	return out
}

// formatValue writes a value with the unit its name implies.
func formatValue(name string, v float64) string {
	switch {
	case strings.HasSuffix(name, "_s"):
		return fmt.Sprintf("%.4g s", v)
	case name == "readahead" || name == "max_request":
		return fmt.Sprintf("%.4g KiB", v/1024)
	case strings.HasSuffix(name, "bandwidth") || strings.HasSuffix(name, "_rate") || name == "node_read" || name == "mem_copy":
		return fmt.Sprintf("%.4g MB/s", v/1e6)
	}
	return fmt.Sprintf("%.4g", v)
}
