package main

import (
	"context"
	"errors"
)

func init() {
	register("config", "check a serve configuration: config check FILE prints it as serve would run, secrets redacted", runConfig)
}

// runConfig: downloader config check FILE, the same as
// downloader serve --config FILE --check (the environment applies as it
// would to serve).
func runConfig(ctx context.Context, args []string, env *Env) error {
	if len(args) != 2 || args[0] != "check" {
		return errors.New("usage: downloader config check FILE")
	}
	return runServe(ctx, []string{"--config", args[1], "--check"}, env)
}
