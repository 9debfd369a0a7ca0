//go:build faultinject

package main

import (
	"flag"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/jobs/faultinject"
)

// faultFlags are the fault-injection settings of a binary built with the
// faultinject tag, for the process-level tests that need an export that
// lasts.
type faultFlags struct {
	throttle int64
}

func (ff *faultFlags) register(fs *flag.FlagSet) {
	fs.Int64Var(&ff.throttle, "test-export-throttle", 0, "fault injection for tests: write archives at most this many bytes/s")
}

// wrap returns the engine the settings make of e.
func (ff faultFlags) wrap(e jobs.Engine) jobs.Engine {
	return faultinject.Throttle(e, ff.throttle)
}
