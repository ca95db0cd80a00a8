package model

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ErrFit marks a fit that cannot be made: nothing to fit, or a parameter
// that cannot be fitted.
var ErrFit = errors.New("cannot fit")

// DefaultFree are the parameters Fit frees unless told otherwise: the
// speeds of the storage, the clients and the CPU. Layout (servers, cores),
// request sizes and the exchange's network stay as given.
var DefaultFree = []string{"server_bandwidth", "server_overhead_s", "contention", "latency_s", "node_read",
	"mem_copy", "cursor_step_s", "touch_rate", "sha256_rate", "startup_s", "process_cpu_s"}

// Residual is one observation beside the model's prediction.
type Residual struct {
	Observation
	Predicted float64 // seconds
	// Error is (predicted - measured) / measured.
	Error float64
}

// FitResult is a fitted parameter set and how well it explains the data.
type FitResult struct {
	Params Params
	Free   []string
	// StdErr is each free parameter's standard error relative to its value
	// (0.05: ±5 %), from the curvature of the least-squares cost; a large
	// one says the data hardly constrain that parameter.
	StdErr    map[string]float64
	Residuals []Residual
	// RMS is the root mean square of the relative errors (log scale).
	RMS float64
}

// FitOptions tune Fit. The zero value fits DefaultFree with 8 restarts.
type FitOptions struct {
	Free     []string // parameters to fit; nil: DefaultFree
	Restarts int      // extra starts from perturbed parameters; 0: 8
	Seed     uint64   // of the perturbations
}

// Fit adjusts the free parameters of start by least squares so that the
// predicted times of the observations match the measured ones, in relative
// terms (the residuals are log(predicted/measured)). It runs
// Levenberg–Marquardt on the logarithms of the parameters (which keeps
// them positive) from start and from perturbed starts, and keeps the best.
// Parameters that none of the observations depend on (a consumer never
// run) keep their starting values and are left out of Free.
func Fit(obs []Observation, start Params, opt FitOptions) (FitResult, error) {
	if len(obs) == 0 {
		return FitResult{}, fmt.Errorf("model: no observations: %w", ErrFit)
	}
	if err := start.Validate(); err != nil {
		return FitResult{}, err
	}
	free, err := freeParams(opt.Free, obs)
	if err != nil {
		return FitResult{}, err
	}
	if len(free) > len(obs) {
		return FitResult{}, fmt.Errorf("model: %d free parameters for %d observations: %w", len(free), len(obs), ErrFit)
	}
	f := fitProblem{obs: obs, base: start, free: free}
	restarts := opt.Restarts
	if restarts == 0 {
		restarts = 8
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6c6d6462696f))
	best := f.levenbergMarquardt(f.theta(start))
	for range restarts {
		x0 := f.theta(start)
		for i := range x0 {
			x0[i] += rng.NormFloat64() * math.Log(2) // within a factor of about two
		}
		if x := f.levenbergMarquardt(x0); f.cost(x) < f.cost(best) {
			best = x
		}
	}
	p := f.params(best)
	res := FitResult{Params: p, Free: names(free), Residuals: Residuals(p, obs), StdErr: f.stdErr(best)}
	res.RMS = rmsLog(res.Residuals)
	return res, nil
}

// Residuals predicts every observation with p.
func Residuals(p Params, obs []Observation) []Residual {
	out := make([]Residual, len(obs))
	for i, o := range obs {
		pred := Predict(p, o.Config).Seconds
		out[i] = Residual{Observation: o, Predicted: pred, Error: (pred - o.Seconds) / o.Seconds}
	}
	return out
}

// rmsLog is the root mean square of log(predicted/measured).
func rmsLog(rs []Residual) float64 {
	if len(rs) == 0 {
		return 0
	}
	var sum float64
	for _, r := range rs {
		d := math.Log(r.Predicted / r.Seconds)
		sum += d * d
	}
	return math.Sqrt(sum / float64(len(rs)))
}

// freeParams resolves the names to fit and drops those no observation
// depends on.
func freeParams(want []string, obs []Observation) ([]param, error) {
	if want == nil {
		want = DefaultFree
	}
	used := map[string]bool{}
	for _, o := range obs {
		used[o.Consumer] = true
		if o.Contender == Exchange {
			used["exchange"] = true
		}
	}
	var out []param
	for _, name := range want {
		p, ok := lookup(name)
		switch {
		case !ok:
			return nil, fmt.Errorf("model: no parameter %q to fit: %w", name, ErrFit)
		case p.fixed || p.fraction:
			return nil, fmt.Errorf("model: %s describes the layout and is not fitted: %w", name, ErrFit)
		case name == "touch_rate" && !used["touch"], name == "sha256_rate" && !used["sha256"],
			(name == "net_bandwidth" || name == "net_latency_s") && !used["exchange"]:
			continue
		}
		if !slices.ContainsFunc(out, func(q param) bool { return q.name == name }) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("model: no parameter to fit: %w", ErrFit)
	}
	return out, nil
}

func names(ps []param) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.name
	}
	return out
}

// fitProblem is the least-squares problem in the logarithms of the free
// parameters.
type fitProblem struct {
	obs  []Observation
	base Params
	free []param
}

func (f fitProblem) theta(p Params) []float64 {
	x := make([]float64, len(f.free))
	for i, q := range f.free {
		x[i] = math.Log(math.Max(*q.get(&p), 1e-300))
	}
	return x
}

func (f fitProblem) params(x []float64) Params {
	p := f.base
	for i, q := range f.free {
		*q.get(&p) = math.Exp(x[i])
	}
	return p
}

// residuals are log(predicted/measured) of every observation.
func (f fitProblem) residuals(x []float64) []float64 {
	p := f.params(x)
	r := make([]float64, len(f.obs))
	for i, o := range f.obs {
		r[i] = math.Log(Predict(p, o.Config).Seconds / o.Seconds)
	}
	return r
}

func (f fitProblem) cost(x []float64) float64 {
	var sum float64
	for _, v := range f.residuals(x) {
		sum += v * v
	}
	if math.IsNaN(sum) {
		return math.Inf(1)
	}
	return sum
}

// jacobian of the residuals by central differences in the log parameters.
func (f fitProblem) jacobian(x []float64) *mat.Dense {
	const h = 1e-5
	j := mat.NewDense(len(f.obs), len(x), nil)
	xp := slices.Clone(x)
	for k := range x {
		xp[k] = x[k] + h
		up := f.residuals(xp)
		xp[k] = x[k] - h
		down := f.residuals(xp)
		xp[k] = x[k]
		for i := range up {
			j.Set(i, k, (up[i]-down[i])/(2*h))
		}
	}
	return j
}

// levenbergMarquardt minimises the cost from x0 and returns where it ended.
func (f fitProblem) levenbergMarquardt(x0 []float64) []float64 {
	x := slices.Clone(x0)
	cost := f.cost(x)
	lambda := 1e-3
	n := len(x)
	for iter := 0; iter < 200 && !math.IsInf(cost, 1); iter++ {
		j := f.jacobian(x)
		r := mat.NewVecDense(len(f.obs), f.residuals(x))
		var jtj mat.Dense
		jtj.Mul(j.T(), j)
		var g mat.VecDense
		g.MulVec(j.T(), r)
		improved := false
		for try := 0; try < 20; try++ {
			a := mat.NewDense(n, n, nil)
			a.Copy(&jtj)
			for k := range n {
				a.Set(k, k, jtj.At(k, k)*(1+lambda)+1e-12)
			}
			var step mat.VecDense
			if err := step.SolveVec(a, &g); err != nil {
				lambda *= 10
				continue
			}
			next := slices.Clone(x)
			for k := range n {
				next[k] -= step.AtVec(k)
			}
			if c := f.cost(next); c < cost {
				done := cost-c < 1e-14*(1+cost)
				x, cost, lambda = next, c, math.Max(lambda/3, 1e-12)
				improved = true
				if done {
					return x
				}
				break
			}
			lambda *= 4
		}
		if !improved {
			break
		}
	}
	return x
}

// stdErr estimates each free parameter's relative standard error from
// the Gauss–Newton covariance σ²(JᵀJ)⁻¹ at the optimum. A parameter the
// residuals do not depend on at all gets +Inf and is left out of the
// inverse, so it does not hide what the others are worth.
func (f fitProblem) stdErr(x []float64) map[string]float64 {
	out := map[string]float64{}
	j := f.jacobian(x)
	m, n := j.Dims()
	var norms []float64
	biggest := 0.0
	for k := range n {
		norms = append(norms, mat.Norm(j.ColView(k), 2))
		biggest = math.Max(biggest, norms[k])
	}
	var keep []int
	for k := range n {
		if norms[k] > 1e-9*biggest {
			keep = append(keep, k)
		} else {
			out[f.free[k].name] = math.Inf(1)
		}
	}
	if len(keep) == 0 {
		return out
	}
	sub := mat.NewDense(m, len(keep), nil)
	for c, k := range keep {
		sub.SetCol(c, mat.Col(nil, k, j))
	}
	var jtj, inv mat.Dense
	jtj.Mul(sub.T(), sub)
	err := inv.Inverse(&jtj)
	var cond mat.Condition
	if errors.As(err, &cond) {
		err = nil // ill-conditioned, not singular: the large variances say so
	}
	sigma2 := 0.0
	if dof := float64(m - len(keep)); dof > 0 {
		sigma2 = f.cost(x) / dof
	}
	for c, k := range keep {
		name := f.free[k].name
		if err != nil || inv.At(c, c) < 0 {
			out[name] = math.Inf(1)
			continue
		}
		// x is a logarithm: its standard error is the relative one.
		out[name] = math.Sqrt(sigma2 * inv.At(c, c))
	}
	return out
}
