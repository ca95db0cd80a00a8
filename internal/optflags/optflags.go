package optflags

import (
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/spf13/pflag"
)

// Flags are the loader options of a command line.
type Flags struct {
	opt  loader.Options
	mode string // --mode as given
}

// Register adds the flags to fs, with the loader's defaults. remainder is
// the default of --remainder, "" for commands that fix the policy
// themselves and have no such flag. Options whose registry entry has
// NoSharedFlag (resume) are left to the commands that take them.
func (f *Flags) Register(fs *pflag.FlagSet, remainder string) {
	f.opt = loader.Options{}
	for _, s := range loader.OptionSpecs() {
		def := s.Default
		switch {
		case s.NoSharedFlag:
			continue
		case s.Name == "remainder":
			if remainder == "" {
				continue
			}
			def = remainder
		}
		v := &value{spec: s, opt: &f.opt}
		if s.Name == "mode" {
			v.text = &f.mode
		}
		if def != "" {
			if err := v.Set(def); err != nil {
				panic(err) // a default the registry cannot read; its tests read every default
			}
		}
		fl := fs.VarPF(v, s.Name, s.Short, s.Help)
		fl.DefValue = def // as the registry writes it (64MiB), for the help
		if s.Type == "bool" {
			fl.NoOptDefVal = "true"
		}
	}
}

// Options returns the loader options the flags hold; remainder, if not
// nil, overrides the flag for a command that needs a fixed policy.
func (f *Flags) Options(remainder *assign.Remainder) loader.Options {
	opt := f.opt
	if remainder != nil {
		opt.Remainder = *remainder
	}
	return opt
}

// ModeName is --mode as the user wrote it ("default" when not given).
func (f *Flags) ModeName() string { return f.mode }

// value is one registry option as a flag: Set reads the value into the
// options as the option string does, with the same errors.
type value struct {
	spec loader.OptionSpec
	opt  *loader.Options
	text *string // where to keep the value as given, if anywhere
}

func (v *value) Set(s string) error {
	if err := v.spec.Set(v.opt, s); err != nil {
		return err
	}
	if v.text != nil {
		*v.text = s
	}
	return nil
}

func (v *value) String() string {
	if v.opt == nil {
		return ""
	}
	return v.spec.String(v.opt)
}

func (v *value) Type() string { return v.spec.Type }
