package cli

import "strings"

// WithoutRankEnv is env without what would make a child process that
// happens to load an MPI library believe it is one of our ranks: a bench
// peer (told its rank and world on the command line) or an agent's learner.
func WithoutRankEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "OMPI_"), strings.HasPrefix(name, "PMIX_"), strings.HasPrefix(name, "PMI_"),
			strings.HasPrefix(name, "HYDI_"), strings.HasPrefix(name, "MPIR_"):
			continue
		}
		out = append(out, kv)
	}
	return out
}
