package occurrence

func newBenchBuilder() *Builder { return NewBuilder() }
