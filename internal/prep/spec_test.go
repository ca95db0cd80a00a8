package prep

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		spec, canonical string
		dtype           DType
		chw             bool
		w, h            int
		fixed           bool
	}{
		{"decode", "decode", Uint8, false, 0, 0, false},
		{"decode,random_resized_crop:224,flip,normalize:imagenet,chw,float16",
			"decode,random_resized_crop:224,flip,normalize:imagenet,chw,float16", Float16, true, 224, 224, true},
		{" decode , center_crop:224 ", "decode,center_crop:224", Uint8, false, 224, 224, true},
		{"decode,resize:256,center_crop:224,float32", "decode,resize:256,center_crop:224,float32", Float32, false, 224, 224, true},
		{"decode,center_crop:224,resize:100", "decode,center_crop:224,resize:100", Uint8, false, 0, 0, false},
		{"decode,flip,normalize:0.5/0.5/0.5,0.25/0.25/0.25,float32",
			"decode,flip,normalize:0.5/0.5/0.5,0.25/0.25/0.25,float32", Float32, false, 0, 0, false},
		{"decode,normalize:0.485/0.456/0.406,0.229/0.224/0.225,float16", "decode,normalize:imagenet,float16", Float16, false, 0, 0, false},
		{"decode,chw", "decode,chw", Uint8, true, 0, 0, false},
	}
	for _, c := range cases {
		p, err := Parse(c.spec)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.spec, err)
			continue
		}
		w, h, fixed := p.FixedSize()
		if p.String() != c.canonical || p.DType() != c.dtype || p.CHW() != c.chw || w != c.w || h != c.h || fixed != c.fixed {
			t.Errorf("Parse(%q) = %q %v chw=%v %dx%d fixed=%v", c.spec, p.String(), p.DType(), p.CHW(), w, h, fixed)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"", "empty pipeline spec"},
		{"decode,crop:224", `step 2 "crop:224": unknown step`},
		{"decode,,flip", "step 2 \"\": empty step"},
		{"center_crop:224", "the first step must be decode"},
		{"decode,decode", "step 2: decode twice"},
		{"decode,center_crop", `step 2 "center_crop": needs a size`},
		{"decode,center_crop:abc", `size "abc": want a whole number of pixels from 1 to 8192`},
		{"decode,center_crop:0", `size "0"`},
		{"decode,resize:-3", `size "-3"`},
		{"decode,resize:9000", `size "9000"`},
		{"decode,random_resized_crop:2.5", `size "2.5"`},
		{"decode,flip:1", `step 2 "flip:1": takes no argument`},
		{"decode,normalize", "needs its statistics"},
		{"decode,normalize:imagenett,float32", "want imagenet or M1/M2/M3,S1/S2/S3"},
		{"decode,normalize:1/2,3/4/5,float32", `mean "1/2": want three numbers`},
		{"decode,normalize:1/2/x,3/4/5,float32", `"x" is not a number`},
		{"decode,normalize:1/2/3,0/1/1,float32", "standard deviation 0: want more than 0"},
		{"decode,normalize:1/2/3,1/1/NaN,float32", `"NaN" is not a number`},
		{"decode,normalize:imagenet", "normalize gives fractions: add float16 or float32"},
		{"decode,chw,flip", "step 3 flip: comes after chw"},
		{"decode,float16,float32", "step 3: float32 after float16: one element type"},
		{"decode,chw,chw", "step 3: chw twice"},
	}
	for _, c := range cases {
		_, err := Parse(c.spec)
		if err == nil {
			t.Errorf("Parse(%q): no error, want %q", c.spec, c.want)
			continue
		}
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q): %v, want one ErrSpec line with %q", c.spec, err, c.want)
		}
	}
}

// FuzzParse: Parse never panics; what it accepts prints as a spec that
// parses to the same pipeline, and every error is one ErrSpec line.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"decode", "decode,random_resized_crop:224,flip,normalize:imagenet,chw,float16",
		"decode,normalize:1/2/3,4/5/6,float32", "decode,resize:256,center_crop:224", "decode,flip,flip,chw",
		"decode,normalize:1e300/2/3,4/5/6,float32", ",,", "decode,normalize:1/2/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		p, err := Parse(spec)
		if err != nil {
			if !errors.Is(err, ErrSpec) || strings.Contains(err.Error(), "\n") && !strings.Contains(spec, "\n") {
				t.Fatalf("Parse(%q): error %q is not one ErrSpec line", spec, err)
			}
			return
		}
		q, err := Parse(p.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %q, which does not parse: %v", spec, p.String(), err)
		}
		if q.String() != p.String() || q.out != p.out {
			t.Fatalf("Parse(%q) = %q, reparsed %q", spec, p.String(), q.String())
		}
	})
}
