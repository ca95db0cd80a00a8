package loader

import (
	"fmt"
	"strconv"

	"github.com/lmdbio/lmdbio/internal/prep"
)

// maxPrepThreads bounds prep-threads: beyond it a value is a mistake.
const maxPrepThreads = 1024

// prepOption reads a prep pipeline spec (internal/prep.Parse), or none.
// The spec is kept in its canonical spelling, so that ranks that wrote
// the same pipeline differently still agree.
func prepOption() OptionSpec {
	return OptionSpec{Name: "prep", Field: "Prep", Value: "SPEC|none", Type: "string", Default: "none",
		Help: "decode and augment image records into one tensor per batch, on the learner's node cores ahead of it: " +
			"steps separated by commas, arguments after a colon (decode, center_crop:S, random_resized_crop:S, resize:S, " +
			"flip, normalize:imagenet|M1/M2/M3,S1/S2/S3, chw, float16|float32), or none (raw records); up to prefetch batches " +
			"ahead, (prefetch+1) x batch x C x H x W x the element's bytes per learner; without a final crop each record " +
			"becomes a decoded Datum instead (for Caffe)",
		MustAgree: true,
		set: func(o *Options, v string) error {
			if v == "none" {
				o.Prep = ""
				return nil
			}
			p, err := parsePrep(v)
			if err != nil {
				return err
			}
			o.Prep = p.String()
			return nil
		},
		show: func(o *Options) string {
			if o.Prep == "" {
				return "none"
			}
			return o.Prep
		},
		zero: func(o *Options) bool { return o.Prep == "" },
	}
}

// prepThreadsOption reads the prep threads of each learner, or auto.
func prepThreadsOption() OptionSpec {
	return OptionSpec{Name: "prep-threads", Field: "PrepThreads", Value: "N|auto", Type: "string", Default: "auto",
		Help: "threads that prep each learner's batches: N, or auto (the node's cores shared among its learners, at least 1)",
		Min:  0, Max: maxPrepThreads, MustAgree: true,
		set: func(o *Options, v string) error {
			if v == "auto" {
				o.PrepThreads = 0
				return nil
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("want a whole number of at least 1, or auto")
			}
			o.PrepThreads = n
			return nil
		},
		show: func(o *Options) string {
			if o.PrepThreads == 0 {
				return "auto"
			}
			return strconv.Itoa(o.PrepThreads)
		},
		zero: func(o *Options) bool { return o.PrepThreads == 0 },
		num:  func(o *Options) int64 { return int64(o.PrepThreads) },
	}
}

// parsePrep parses a spec. A pipeline whose samples all have one size
// makes a tensor per batch; one without (no final crop) makes decoded
// Datums, which hold uint8 pixels only.
func parsePrep(spec string) (*prep.Pipeline, error) {
	p, err := prep.Parse(spec)
	if err != nil {
		return nil, err
	}
	if _, _, ok := p.FixedSize(); !ok && p.DType() != prep.Uint8 {
		return nil, fmt.Errorf("prep %q: samples of a batch differ in size, so they become decoded Datums of uint8 pixels: "+
			"drop %s, or end the pipeline's geometric steps with center_crop:S or random_resized_crop:S for one tensor per batch", spec, p.DType())
	}
	return p, nil
}

// checkPrep checks Options.Prep as Go callers may set it directly.
func (o *Options) checkPrep() error {
	if o.Prep == "" {
		return nil
	}
	if _, err := parsePrep(o.Prep); err != nil {
		return fmt.Errorf("%w: --prep: %v", ErrBadOption, err)
	}
	return nil
}
