//go:build !faultinject

package main

import (
	"flag"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// faultFlags are empty in a production build: fault injection exists only
// in a binary built with the faultinject tag (serve_faultinject.go).
type faultFlags struct{}

func (*faultFlags) register(*flag.FlagSet) {}

func (faultFlags) wrap(e jobs.Engine) jobs.Engine { return e }

func (faultFlags) service(*jobs.Service) {}
