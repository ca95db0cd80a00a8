package prep

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Op is the kind of one step of a pipeline.
type Op int

const (
	OpDecode            Op = iota + 1 // decode
	OpCenterCrop                      // center_crop:S
	OpRandomResizedCrop               // random_resized_crop:S
	OpResize                          // resize:S (shorter side)
	OpFlip                            // flip (horizontal, p=0.5)
	OpNormalize                       // normalize:imagenet | normalize:M1/M2/M3,S1/S2/S3
	OpCHW                             // chw
	OpFloat16                         // float16
	OpFloat32                         // float32
)

var opNames = map[Op]string{
	OpDecode: "decode", OpCenterCrop: "center_crop", OpRandomResizedCrop: "random_resized_crop",
	OpResize: "resize", OpFlip: "flip", OpNormalize: "normalize", OpCHW: "chw",
	OpFloat16: "float16", OpFloat32: "float32",
}

// String returns the op's name in a spec.
func (o Op) String() string {
	if n, ok := opNames[o]; ok {
		return n
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// geometric reports whether o moves pixels (and so must come before the
// output steps).
func (o Op) geometric() bool {
	return o == OpCenterCrop || o == OpRandomResizedCrop || o == OpResize || o == OpFlip
}

// Step is one parsed step.
type Step struct {
	Op   Op
	Size int // the S of the crops and resize
	// Mean and Std of normalize, per channel (R, G, B), on ToTensor's 0-1
	// scale.
	Mean, Std [3]float64
}

// ImageNet's channel statistics, as torchvision's reference scripts use.
var (
	imagenetMean = [3]float64{0.485, 0.456, 0.406}
	imagenetStd  = [3]float64{0.229, 0.224, 0.225}
)

// MaxSize is the largest S a crop or resize step takes.
const MaxSize = 8192

const stepsHelp = "decode, center_crop:S, random_resized_crop:S, resize:S, flip, " +
	"normalize:imagenet or normalize:M1/M2/M3,S1/S2/S3, chw, float16, float32"

// Parse reads a pipeline spec: steps separated by commas, arguments after a
// colon, decode first, then crops, resize and flip in any order, then
// normalize, chw and the element type (each at most once). An error
// matches ErrSpec and is one line naming the step at fault.
func Parse(spec string) (*Pipeline, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, specErrorf("empty pipeline spec (want steps such as decode,center_crop:224)")
	}
	tokens := strings.Split(spec, ",")
	var steps []Step
	for i := 0; i < len(tokens); i++ {
		tok := strings.TrimSpace(tokens[i])
		name, arg, hasArg := strings.Cut(tok, ":")
		name, arg = strings.TrimSpace(name), strings.TrimSpace(arg)
		// normalize's "M1/M2/M3,S1/S2/S3" holds the step separator: its
		// second half is the next token.
		if name == "normalize" && strings.Contains(arg, "/") && i+1 < len(tokens) {
			i++
			arg += "," + strings.TrimSpace(tokens[i])
		}
		s, err := parseStep(name, arg, hasArg)
		if err != nil {
			return nil, specErrorf("step %d %q: %v", len(steps)+1, strings.TrimSpace(name+cond(hasArg, ":"+arg)), err)
		}
		steps = append(steps, s)
	}
	return newPipeline(steps)
}

func cond(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// parseStep reads one step, name and argument.
func parseStep(name, arg string, hasArg bool) (Step, error) {
	var op Op
	for o, n := range opNames {
		if n == name {
			op = o
		}
	}
	switch {
	case op == 0 && name == "":
		return Step{}, fmt.Errorf("empty step (want one of %s)", stepsHelp)
	case op == 0:
		return Step{}, fmt.Errorf("unknown step (want one of %s)", stepsHelp)
	}
	s := Step{Op: op}
	switch op {
	case OpCenterCrop, OpRandomResizedCrop, OpResize:
		if !hasArg {
			return s, fmt.Errorf("needs a size: %s:S, S in pixels", name)
		}
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 || n > MaxSize {
			return s, fmt.Errorf("size %q: want a whole number of pixels from 1 to %d", arg, MaxSize)
		}
		s.Size = n
	case OpNormalize:
		if !hasArg {
			return s, fmt.Errorf("needs its statistics: normalize:imagenet or normalize:M1/M2/M3,S1/S2/S3")
		}
		return parseNormalize(arg)
	default:
		if hasArg {
			return s, fmt.Errorf("takes no argument")
		}
	}
	return s, nil
}

// parseNormalize reads "imagenet" or "M1/M2/M3,S1/S2/S3".
func parseNormalize(arg string) (Step, error) {
	s := Step{Op: OpNormalize}
	if arg == "imagenet" {
		s.Mean, s.Std = imagenetMean, imagenetStd
		return s, nil
	}
	m, sd, ok := strings.Cut(arg, ",")
	if !ok {
		return s, fmt.Errorf("want imagenet or M1/M2/M3,S1/S2/S3 (means, then standard deviations, on the 0-1 scale)")
	}
	var err error
	if s.Mean, err = parseTriple(m, "mean"); err != nil {
		return s, err
	}
	if s.Std, err = parseTriple(sd, "standard deviation"); err != nil {
		return s, err
	}
	for _, v := range s.Std {
		if v <= 0 {
			return s, fmt.Errorf("standard deviation %g: want more than 0", v)
		}
	}
	return s, nil
}

// parseTriple reads "A/B/C", three finite numbers.
func parseTriple(v, what string) ([3]float64, error) {
	var t [3]float64
	parts := strings.Split(strings.TrimSpace(v), "/")
	if len(parts) != 3 {
		return t, fmt.Errorf("%s %q: want three numbers A/B/C, one per channel", what, v)
	}
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) > 1e6 {
			return t, fmt.Errorf("%s %q: %q is not a number (want A/B/C)", what, v, p)
		}
		t[i] = f
	}
	return t, nil
}

// String returns the spec in the spelling Parse reads: Parse(p.String())
// gives the same pipeline.
func (p *Pipeline) String() string {
	var b strings.Builder
	for i, s := range p.steps {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s.Op.String())
		switch s.Op {
		case OpCenterCrop, OpRandomResizedCrop, OpResize:
			fmt.Fprintf(&b, ":%d", s.Size)
		case OpNormalize:
			if s.Mean == imagenetMean && s.Std == imagenetStd {
				b.WriteString(":imagenet")
				continue
			}
			fmt.Fprintf(&b, ":%s,%s", triple(s.Mean), triple(s.Std))
		}
	}
	return b.String()
}

func triple(t [3]float64) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return f(t[0]) + "/" + f(t[1]) + "/" + f(t[2])
}
