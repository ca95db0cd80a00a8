package loader

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/lmdbio/lmdbio/internal/units"
)

// The registry's options whose values are of a kind of their own.

// seed is any uint64.
func seed() OptionSpec {
	return OptionSpec{Name: "seed", Field: "Seed", Value: "N", Type: "uint", Default: "0", Help: "seed of the shuffles",
		MustAgree: true,
		set: func(o *Options, v string) error {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return fmt.Errorf("want a whole number from 0 to 2^64-1")
			}
			o.Seed = n
			return nil
		},
		show: func(o *Options) string { return strconv.FormatUint(o.Seed, 10) },
		zero: func(o *Options) bool { return o.Seed == 0 },
	}
}

// cache reads auto (pick what fits), off or 0 (none), or a size.
func cache() OptionSpec {
	return OptionSpec{Name: "cache", Field: "Cache", Value: "auto|off|SIZE", Type: "string", Default: "auto",
		Help: "shared memory per node for a cache of the samples it loaded, never evicted: a size, auto (what fits; " +
			"none for a single unshuffled epoch (shuffle none or file), which reads no sample twice) or off (also 0)",
		Min: CacheOff, Max: maxBytes * 1024, MustAgree: true,
		set: func(o *Options, v string) error {
			switch v {
			case "auto":
				o.Cache = 0
				return nil
			case "off", "0":
				o.Cache = CacheOff
				return nil
			}
			n, err := units.ParseSize(v)
			if err != nil {
				return fmt.Errorf("want a size (e.g. 8GiB), auto or off")
			}
			o.Cache = n
			return nil
		},
		show: func(o *Options) string {
			switch o.Cache {
			case CacheOff:
				return "off"
			case 0:
				return "auto"
			}
			return strconv.FormatInt(o.Cache, 10)
		},
		zero: func(o *Options) bool { return o.Cache == 0 },
		num:  func(o *Options) int64 { return o.Cache },
	}
}

// direct is a boolean: true, false, 1, 0 (strconv.ParseBool's words).
func direct() OptionSpec {
	return OptionSpec{Name: "direct", Field: "Direct", Value: "true|false", Type: "bool", Default: "false",
		Help:      "read the data file with O_DIRECT, bypassing the page cache",
		MustAgree: true,
		set: func(o *Options, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("want true or false")
			}
			o.Direct = b
			return nil
		},
		show: func(o *Options) string { return strconv.FormatBool(o.Direct) },
		zero: func(o *Options) bool { return !o.Direct },
	}
}

// resume reads a State document, inline when it starts with '{', else from
// the file it names. Ranks agree on its fingerprint.
func resume() OptionSpec {
	return OptionSpec{Name: "resume", Field: "Resume", Value: "STATE", Type: "string",
		Help: "continue the run a state describes (lmdbio_state, Loader.state(), digest --state-out), also with " +
			"another number of learners (same dataset, shuffle, seed and global batch size): the state itself " +
			"when it starts with '{' (a JSON object, which may hold spaces), else the path of a file that holds it",
		MustAgree: true, NoSharedFlag: true,
		set: func(o *Options, v string) error {
			st, err := readState(v)
			if err != nil {
				return err
			}
			o.Resume = st
			return nil
		},
		show: func(o *Options) string {
			if o.Resume == nil {
				return "none"
			}
			b, err := json.Marshal(o.Resume)
			if err != nil {
				return "" // a State always marshals
			}
			return string(b)
		},
		zero: func(o *Options) bool { return o.Resume == nil },
		agree: func(o *Options) string {
			if o.Resume == nil {
				return "none"
			}
			return o.Resume.fingerprint()
		},
	}
}

// readState reads a resume state given as a document (it starts with '{',
// after spaces) or as the path of a file holding one.
func readState(v string) (*State, error) {
	if strings.HasPrefix(strings.TrimLeft(v, " \t\r\n"), "{") {
		return ParseState([]byte(v))
	}
	return ReadStateFile(v)
}
