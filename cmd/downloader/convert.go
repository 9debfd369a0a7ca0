package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/biodiversity-downloads/downloader/abcd"
	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
	"github.com/biodiversity-downloads/downloader/internal/pzip"
)

func init() {
	register("convert", "convert ABCD documents, archives or BioCASe endpoints to a Darwin Core Archive", runConvert)
}

// maxListedFailures caps the failed documents listed on stderr.
const maxListedFailures = 20

// convertConfig is the parsed command line of convert.
type convertConfig struct {
	from     string
	out      string
	dataset  string
	workers  int
	level    int
	maxInput int64
	inputs   []string
}

// parseConvert accepts flags before, between and after the inputs.
func parseConvert(args []string, env *Env) (convertConfig, error) {
	var c convertConfig
	fs := newFlagSet("convert", env)
	fs.StringVar(&c.from, "from", "", "input format: abcd")
	fs.StringVar(&c.out, "o", "", "output Darwin Core Archive (zip)")
	fs.StringVar(&c.dataset, "dataset", "", "dataset title to harvest from a BioCASe endpoint")
	fs.IntVar(&c.workers, "workers", 0, "documents parsed in parallel (0: one per CPU)")
	fs.IntVar(&c.level, "level", 0, "deflate level 1..9 (0: default)")
	fs.Int64Var(&c.maxInput, "max-input-bytes", abcd.DefaultMaxDocumentBytes, "cap on each ABCD document (a file, an archive entry, a download), in bytes (docs/limits.md)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: downloader convert --from abcd INPUT... -o OUT.zip\n\nINPUT is an ABCD document, an ABCD archive (zip, .abcda) or\nbiocase+https://host/path/pywrapper.cgi?dsa=NAME\n\nflags:")
		fs.PrintDefaults()
	}
	for {
		if err := fs.Parse(args); err != nil {
			return c, err
		}
		if fs.NArg() == 0 {
			break
		}
		c.inputs = append(c.inputs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case c.from != "abcd":
		return c, fmt.Errorf("--from %q: only abcd is supported", c.from)
	case c.out == "":
		return c, errors.New("-o OUT.zip is required")
	case len(c.inputs) == 0:
		return c, errors.New("no input given")
	}
	return c, nil
}

func runConvert(ctx context.Context, args []string, env *Env) error {
	c, err := parseConvert(args, env)
	if err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		// The live heap is a few units per worker; collecting less often
		// saves ~10% CPU for a few tens of MB.
		debug.SetGCPercent(400)
	}
	start := time.Now()
	src, err := abcd.OpenSources(ctx, c.inputs, abcd.SourceOptions{Workers: c.workers, Dataset: c.dataset, Logger: env.Logger,
		Reader: abcd.Options{MaxDocumentBytes: c.maxInput}})
	if err != nil {
		return err
	}
	defer src.Close()
	n, err := writeConverted(ctx, src, c)
	if err != nil {
		return err
	}
	st := src.Stats()
	secs := time.Since(start).Seconds()
	fmt.Fprintf(env.Stdout, "converted %d units from %d documents (%d failed, %d dropped by the provider) to %s in %.1fs (%.0f units/s)\n",
		n, st.Documents, st.FailedDocuments, st.Dropped, c.out, secs, float64(n)/secs)
	problems := src.Problems()
	for i, p := range problems {
		if i == maxListedFailures {
			break
		}
		fmt.Fprintf(env.Stderr, "failed: %v (%d units kept)\n", p.Err, p.Kept)
	}
	if more := st.FailedDocuments - min(len(problems), maxListedFailures); more > 0 {
		fmt.Fprintf(env.Stderr, "... and %d more failed documents\n", more)
	}
	if st.FailedDocuments > 0 {
		return fmt.Errorf("%d of %d documents failed; %s holds the others", st.FailedDocuments, st.Documents, c.out)
	}
	return nil
}

// writeConverted writes the archive to a temporary file beside c.out and
// moves it into place (durably, atomicfile) only when complete; extension
// files are spooled beside it too.
func writeConverted(ctx context.Context, src *abcd.Source, c convertConfig) (int, error) {
	tmp, err := atomicfile.Create(c.out, 0o644)
	if err != nil {
		return 0, err
	}
	defer tmp.Abort() // no-op after the Commit
	zw, err := pzip.NewWriter(tmp, pzip.Options{Level: c.level})
	if err != nil {
		return 0, err
	}
	defer zw.Abort() // stops the workers on an error; no-op after Close
	n, err := abcd.WriteArchive(ctx, src, zw, filepath.Dir(c.out))
	if err != nil {
		return n, err
	}
	if err := zw.Close(); err != nil {
		return n, err
	}
	return n, tmp.Commit()
}
