// Command downloader ingests, counts and exports occurrence data, converts ABCD
// to Darwin Core and serves GBIF-compatible download jobs.
//
// main.go stays tiny: it dispatches to one file per subcommand.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"syscall"
)

// Env is what a subcommand may touch of the outside world.
type Env struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	Logger         *slog.Logger
}

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, env *Env) error
}

// commands registers every subcommand; each lives in its own file.
var commands = map[string]command{}

func register(name, summary string, run func(ctx context.Context, args []string, env *Env) error) {
	commands[name] = command{summary: summary, run: run}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	os.Exit(run(ctx, os.Args[1:], env))
}

// run executes a command line and returns the process exit code.
func run(ctx context.Context, args []string, env *Env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.Stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if ok {
		tuneGC(args[0])
	}
	if !ok {
		fmt.Fprintf(env.Stderr, "downloader: unknown command %q\n", args[0])
		usage(env.Stderr)
		return 2
	}
	if err := cmd.run(ctx, args[1:], env); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(env.Stderr, "downloader %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// tuneGC sets the collector for the command's memory profile; GOGC or
// GOMEMLIMIT in the environment win.
//   - count and export hold a few Arrow batches: the heap may grow to five
//     times the live data, so the collector runs far less often, under a
//     soft limit well within the 300 MB they are meant to run in;
//   - ingest keeps two clustering windows (one filling while the one
//     before it is written on a goroutine of its own) and a few chunks of
//     records in flight: on 300,000 records of ~67 filled terms and long
//     verbatim documents, ~250 MB live at the peak with the derived
//     taxonomy. A 384 MB soft limit keeps the heap from doubling that at
//     every window, at a price in collections (a larger GOMEMLIMIT buys
//     some of it back for memory; 256 MB, the limit of the one-window
//     writer, made the collector run without pause: BENCHMARKS.md,
//     docs/operations.md);
//   - rollover sorts windows of one window's size under a 256 MB limit,
//     and merges runs holding one batch of each and a row group of output;
//   - convert and demo keep a clustering window too, with a 512 MB limit;
//   - taxonomy load keeps ~100 bytes a name live (records and indexes):
//     collecting at half the live heap again keeps a 2M-name load's peak
//     low at little cost;
//   - serve keeps Go's defaults.
func tuneGC(command string) {
	var percent int
	var limit int64
	switch command {
	case "count", "export":
		percent, limit = 400, 200<<20
	case "ingest":
		percent, limit = 100, ingestMemoryLimit
	case "rollover":
		percent, limit = 100, 256<<20
	case "convert", "demo":
		percent, limit = 100, 512<<20
	case "taxonomy":
		percent, limit = 50, math.MaxInt64
	default:
		return
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
}

// ingestMemoryLimit is ingest's soft memory limit (see tuneGC).
const ingestMemoryLimit = 384 << 20

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: downloader <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'downloader <command> -h' for the flags of a command.")
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string, env *Env) *flag.FlagSet {
	fs := flag.NewFlagSet("downloader "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return fs
}
