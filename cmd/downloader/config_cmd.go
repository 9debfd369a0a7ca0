package main

import (
	"context"
	"errors"
	"os"
)

func init() {
	register("config", "check a serve configuration: config check [FILE] (default $DOWNLOADER_CONFIG) prints it as serve would run, secrets redacted", runConfig)
}

// runConfig: downloader config check [FILE], the same as
// downloader serve --config FILE --check (the environment applies as it
// would to serve); without FILE, $DOWNLOADER_CONFIG names it.
func runConfig(ctx context.Context, args []string, env *Env) error {
	switch {
	case len(args) == 2 && args[0] == "check":
		return runServe(ctx, []string{"--config", args[1], "--check"}, env)
	case len(args) == 1 && args[0] == "check" && os.Getenv(configEnv) != "":
		return runServe(ctx, []string{"--check"}, env)
	}
	return errors.New("usage: downloader config check FILE (default $" + configEnv + ")")
}
