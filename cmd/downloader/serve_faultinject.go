//go:build faultinject

package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/jobs/faultinject"
)

// faultFlags are the fault-injection settings of a binary built with the
// faultinject tag, for the process-level tests that need an export that
// lasts.
type faultFlags struct {
	throttle int64
	mailKill string
}

func (ff *faultFlags) register(fs *flag.FlagSet) {
	fs.Int64Var(&ff.throttle, "test-export-throttle", 0, "fault injection for tests: write archives at most this many bytes/s")
	fs.StringVar(&ff.mailKill, "test-mail-kill", "", "fault injection for tests: SIGKILL this process when a notice reaches "+
		"this stage: accepted (the SMTP server took it, not yet recorded) or recorded")
}

// service sets the fault hooks of svc: with --test-mail-kill the process
// kills itself, as an operator's kill -9 would, at that stage of the first
// notice it delivers.
func (ff faultFlags) service(svc *jobs.Service) {
	if ff.mailKill == "" {
		return
	}
	svc.InjectMailFault(func(stage jobs.MailStage, key string) error {
		if string(stage) != ff.mailKill {
			return nil
		}
		fmt.Fprintf(os.Stderr, "fault injection: killing this worker with the notice %s %s\n", key, stage)
		p, err := os.FindProcess(os.Getpid())
		if err == nil {
			err = p.Kill()
		}
		if err != nil {
			return err
		}
		select {} // the signal ends the process here
	})
}

// wrap returns the engine the settings make of e.
func (ff faultFlags) wrap(e jobs.Engine) jobs.Engine {
	return faultinject.Throttle(e, ff.throttle)
}
