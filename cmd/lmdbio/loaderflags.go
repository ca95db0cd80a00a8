package main

import (
	"fmt"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/spf13/pflag"
)

// loaderFlags are the loader options shared by the commands that read a
// dataset through the pipeline: one flag per option of the loader's
// registry (loader.OptionSpecs), which also reads and checks the values.
type loaderFlags struct {
	opt  loader.Options
	mode string // --mode as given: a contender's name in stall's report
}

// register adds the flags to fs, with the loader's defaults. remainder is
// the default of --remainder, "" for commands that fix the policy
// themselves and have no such flag.
func (f *loaderFlags) register(fs *pflag.FlagSet, remainder string) {
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
		v := &optionFlag{spec: s, opt: &f.opt}
		if s.Name == "mode" {
			v.text = &f.mode
		}
		if def != "" {
			if err := v.Set(def); err != nil {
				panic(err) // a default the registry cannot read; a test reads every default
			}
		}
		fl := fs.VarPF(v, s.Name, s.Short, s.Help)
		fl.DefValue = def // as the registry writes it (64MiB), for the help
		if s.Type == "bool" {
			fl.NoOptDefVal = "true"
		}
	}
}

// options returns the loader options the flags hold; remainder overrides
// the flag when the command needs a fixed one.
func (f *loaderFlags) options(remainder *assign.Remainder) (loader.Options, error) {
	opt := f.opt
	if remainder != nil {
		opt.Remainder = *remainder
	}
	return opt, nil
}

// modeName is --mode as the user wrote it.
func (f *loaderFlags) modeName() string { return f.mode }

func (f *loaderFlags) String() string {
	return fmt.Sprintf("mode=%s batch=%d", f.mode, f.opt.Batch)
}

// optionFlag is one registry option as a flag: Set reads the value into
// the options as the C option string does, with the same errors.
type optionFlag struct {
	spec loader.OptionSpec
	opt  *loader.Options
	text *string // where to keep the value as given, if anywhere
}

func (v *optionFlag) Set(s string) error {
	if err := v.spec.Set(v.opt, s); err != nil {
		return err
	}
	if v.text != nil {
		*v.text = s
	}
	return nil
}

func (v *optionFlag) String() string {
	if v.opt == nil {
		return ""
	}
	return v.spec.String(v.opt)
}

func (v *optionFlag) Type() string { return v.spec.Type }
