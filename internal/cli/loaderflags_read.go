package cli

// Mode is the --mode given (or its default), for commands that name a
// contender after it.
func (f *LoaderFlags) Mode() string { return f.mode }

// Batch is the --batch given (or its default), for commands that say when
// something else overrides it.
func (f *LoaderFlags) Batch() int { return f.batch }
