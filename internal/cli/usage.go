package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// UsageChecks makes the mistakes cobra itself catches usage errors (exit 2,
// one line that names the command): a wrong number of arguments, and an
// unknown command, which cobra reports as plain errors (exit 1). Call it
// after every subcommand has been added.
func UsageChecks(root *cobra.Command) {
	for _, c := range root.Commands() {
		c.Args = UsageArgs(c.Args)
	}
	root.Args = cobra.ArbitraryArgs
	root.SuggestionsMinimumDistance = 2
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q (see %s --help)", args[0], cmd.Name())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += fmt.Sprintf("; did you mean %s?", strings.Join(s, " or "))
		}
		return UsageError(errors.New(msg))
	}
}

// UsageArgs wraps a positional-argument check so that its error is a usage
// error saying what the command wants, in the words of its synopsis.
func UsageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	if check == nil {
		return nil
	}
	return func(cmd *cobra.Command, args []string) error {
		if check(cmd, args) == nil {
			return nil
		}
		return UsageError(errors.New(argsProblem(positionals(cmd.Use), args)))
	}
}

// argsProblem says what is wrong with args for a command whose synopsis
// names the positional arguments want.
func argsProblem(want, args []string) string {
	switch {
	case len(args) < len(want):
		return "needs a " + want[len(args)]
	case len(want) == 0:
		return fmt.Sprintf("takes no arguments (got %s)", quoteList(args))
	default:
		return fmt.Sprintf("takes %s, got %d arguments (%s)", strings.Join(want, " "), len(args), quoteList(args))
	}
}

// positionals lists the positional arguments in a synopsis such as
// "info [--json] PATH": the upper-case words that are not flag values.
func positionals(use string) []string {
	var out []string
	words := strings.Fields(use)
	for i, w := range words {
		if i == 0 {
			continue // the command's name
		}
		afterFlag := strings.HasPrefix(strings.TrimLeft(words[i-1], "["), "-") && !strings.HasSuffix(words[i-1], "]")
		name := strings.Trim(w, "[]")
		if afterFlag || name == "" || name != strings.ToUpper(name) || strings.HasPrefix(name, "-") {
			continue
		}
		out = append(out, strings.TrimSuffix(name, "..."))
	}
	return out
}

func quoteList(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, " ")
}

// FlagError rewords pflag's errors about flag values, which quote Go's
// parser ("invalid argument "x" for "-n, --ranks" flag: strconv.ParseInt:
// parsing "x": invalid syntax"), as "--ranks x: not a whole number".
func FlagError(err error) error {
	var invalid *pflag.InvalidValueError
	if !errors.As(err, &invalid) {
		return err
	}
	why := invalid.Unwrap()
	var num *strconv.NumError
	if errors.As(why, &num) {
		switch {
		case errors.Is(num.Err, strconv.ErrRange):
			why = errors.New("out of range")
		case num.Func == "ParseBool":
			why = errors.New("want true or false")
		case strings.HasPrefix(num.Func, "ParseFloat"):
			why = errors.New("not a number")
		default:
			why = errors.New("not a whole number")
		}
	}
	return fmt.Errorf("--%s %s: %w", invalid.GetFlag().Name, invalid.GetValue(), why)
}
