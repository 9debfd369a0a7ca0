// Command abcdgen writes a generated ABCD archive for bench/abcd.sh.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/biodiversity-downloads/downloader/abcd/internal/abcdgen"
)

func main() {
	out := flag.String("o", "", "output zip")
	units := flag.Int("units", 1000000, "units to generate")
	perDoc := flag.Int("per-doc", 100, "units per document")
	flag.Parse()
	if err := run(*out, *units, *perDoc); err != nil {
		fmt.Fprintln(os.Stderr, "abcdgen:", err)
		os.Exit(1)
	}
}

func run(out string, units, perDoc int) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := abcdgen.WriteArchive(bw, units, perDoc, 1); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
