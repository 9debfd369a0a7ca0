package main

import (
	"context"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/biodiversity-downloads/downloader/download"
)

//go:embed samples/*.zip samples/*.xml
var samples embed.FS

func init() {
	register("demo", "run the main job on the embedded default: ingest bundled samples, count, export a download", runDemo)
}

// runDemo shows the whole flow on a fresh machine with nothing but Go: three
// real sample datasets (two Darwin Core Archives and a BioCASe ABCD response)
// go into an embedded Parquet table, a portal query is counted, and its
// matches are exported as a GBIF-style Darwin Core Archive download.
func runDemo(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("demo", env)
	dir := fs.String("dir", "demo", "working directory for the table and the download")
	query := fs.String("query", "basisOfRecord=PRESERVED_SPECIMEN&basisOfRecord=HUMAN_OBSERVATION", "portal query to count and export")
	format := fs.String("format", string(download.FormatDWCA), "download format: "+strings.Join(download.FormatNames(), ", "))
	if err := fs.Parse(args); err != nil {
		return err
	}
	srcDir := filepath.Join(*dir, "sources")
	if err := os.MkdirAll(srcDir, 0o755); err != nil {
		return err
	}
	entries, err := samples.ReadDir("samples")
	if err != nil {
		return err
	}
	table := filepath.Join(*dir, "table")
	ingestArgs := []string{"--table", table}
	for _, e := range entries {
		data, err := samples.ReadFile("samples/" + e.Name())
		if err != nil {
			return err
		}
		p := filepath.Join(srcDir, e.Name())
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
		ingestArgs = append(ingestArgs, p)
	}
	out := filepath.Join(*dir, "download.zip")
	fmt.Fprintf(env.Stdout, "== downloader ingest --table %s %s/*\n", table, srcDir)
	if err := runIngest(ctx, ingestArgs, env); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\n== downloader count --table %s --query '%s'\n", table, *query)
	if err := runCount(ctx, []string{"--table", table, "--query", *query}, env); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\n== downloader export --table %s --query '%s' --format %s -o %s\n", table, *query, *format, out)
	if err := runExport(ctx, []string{"--table", table, "--query", *query, "--format", *format, "-o", out, "--progress", "never"}, env); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\nThe download is %s; unzip -l it to see occurrence.txt, verbatim.txt, meta.xml, metadata.xml, citations.txt, rights.txt.\n", out)
	return nil
}
