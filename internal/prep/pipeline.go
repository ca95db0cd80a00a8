package prep

import "fmt"

// DType is the element type of a prepared sample.
type DType int

const (
	Uint8   DType = iota // the default: pixels as they are
	Float16              // IEEE 754 half precision, native byte order
	Float32              // IEEE 754 single precision, native byte order
)

// Size returns the bytes of one element.
func (d DType) Size() int {
	switch d {
	case Float16:
		return 2
	case Float32:
		return 4
	}
	return 1
}

// String returns "uint8", "float16" or "float32".
func (d DType) String() string {
	switch d {
	case Float16:
		return "float16"
	case Float32:
		return "float32"
	}
	return "uint8"
}

// Channels is the number of channels of every prepared sample (RGB).
const Channels = 3

// MaxPixels bounds the images prep holds, decoded or resized: 64
// megapixels, 192 MiB of RGB, per buffer of a Worker. A header that claims
// more is refused rather than allocated.
const MaxPixels = 64 << 20

// Pipeline is a parsed spec. It is immutable and safe for concurrent use.
type Pipeline struct {
	steps []Step
	out   outFormat
	// FullDecode turns off DCT-domain downscaling: JPEGs are always decoded
	// at full size, so that outputs equal Pillow-based pipelines exactly, at
	// the cost of speed when a step shrinks the image. Set it before
	// sharing the pipeline.
	FullDecode bool
}

// newPipeline checks the order of steps and derives the output format.
func newPipeline(steps []Step) (*Pipeline, error) {
	if len(steps) == 0 || steps[0].Op != OpDecode {
		return nil, specErrorf("the first step must be decode")
	}
	p := &Pipeline{steps: steps}
	seen := map[Op]int{}
	var normalize *Step
	outputStep := 0
	for i, s := range steps {
		n := i + 1
		switch {
		case s.Op == OpDecode && i > 0:
			return nil, specErrorf("step %d: decode twice", n)
		case s.Op.geometric() && outputStep > 0:
			return nil, specErrorf("step %d %s: comes after %s; crops, resize and flip go before normalize, chw and the element type",
				n, s.Op, steps[outputStep-1].Op)
		case !s.Op.geometric() && s.Op != OpDecode && seen[s.Op] > 0:
			return nil, specErrorf("step %d: %s twice", n, s.Op)
		}
		seen[s.Op]++
		switch s.Op {
		case OpNormalize:
			normalize = &steps[i]
		case OpCHW:
			p.out.chw = true
		case OpFloat16, OpFloat32:
			if p.out.dtype != Uint8 {
				return nil, specErrorf("step %d: %s after %s: one element type", n, s.Op, p.out.dtype)
			}
			p.out.dtype = map[Op]DType{OpFloat16: Float16, OpFloat32: Float32}[s.Op]
		}
		if !s.Op.geometric() && s.Op != OpDecode && outputStep == 0 {
			outputStep = n
		}
	}
	if normalize != nil && p.out.dtype == Uint8 {
		return nil, specErrorf("normalize gives fractions: add float16 or float32")
	}
	p.out.init(normalize)
	return p, nil
}

// Steps returns a copy of the pipeline's steps.
func (p *Pipeline) Steps() []Step { return append([]Step(nil), p.steps...) }

// DType returns the element type of the output.
func (p *Pipeline) DType() DType { return p.out.dtype }

// CHW reports whether the output is channel-major (C, H, W) rather than
// (H, W, C).
func (p *Pipeline) CHW() bool { return p.out.chw }

// OutputSize returns the width and height of the output for a source image
// of w x h pixels (0, 0 when a crop is larger than the image).
func (p *Pipeline) OutputSize(w, h int) (ow, oh int) {
	for _, s := range p.steps {
		switch s.Op {
		case OpCenterCrop:
			if s.Size > w || s.Size > h {
				return 0, 0
			}
			w, h = s.Size, s.Size
		case OpRandomResizedCrop:
			w, h = s.Size, s.Size
		case OpResize:
			w, h = shorterSide(w, h, s.Size)
		}
	}
	return w, h
}

// FixedSize returns the output's width and height when it is the same for
// every image (the last step that sizes the image is a crop), and ok false
// when it depends on the image (no crop, or a resize after the last one).
func (p *Pipeline) FixedSize() (w, h int, ok bool) {
	for _, s := range p.steps {
		switch s.Op {
		case OpCenterCrop, OpRandomResizedCrop:
			w, h, ok = s.Size, s.Size, true
		case OpResize:
			ok = false
		}
	}
	if !ok {
		return 0, 0, false
	}
	return w, h, true
}

// SampleBytes returns the bytes of one output of w x h pixels.
func (p *Pipeline) SampleBytes(w, h int) int { return w * h * Channels * p.out.dtype.Size() }

// Shape returns the output's shape for w x h pixels, (C, H, W) with chw
// and (H, W, C) without.
func (p *Pipeline) Shape(w, h int) [3]int {
	if p.out.chw {
		return [3]int{Channels, h, w}
	}
	return [3]int{h, w, Channels}
}

// GoString describes the pipeline for debugging.
func (p *Pipeline) GoString() string { return fmt.Sprintf("prep.Pipeline(%q)", p.String()) }
