package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/biodiversity-downloads/downloader/ingest"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/taxonomy"
)

func init() {
	register("taxonomy", "load a checklist into a table's taxonomy and re-interpret the table, show it, match names (load|reinterpret|info|match)", runTaxonomy)
}

func runTaxonomy(ctx context.Context, args []string, env *Env) error {
	if len(args) == 0 {
		return errors.New("usage: downloader taxonomy load|reinterpret|info|match [flags]")
	}
	switch args[0] {
	case "load":
		return runTaxonomyLoad(ctx, args[1:], env)
	case "info":
		return runTaxonomyInfo(args[1:], env)
	case "match":
		return runTaxonomyMatch(ctx, args[1:], env)
	case "reinterpret":
		return runTaxonomyReinterpret(ctx, args[1:], env)
	case "-h", "--help", "help":
		fmt.Fprintln(env.Stderr, "usage: downloader taxonomy load CHECKLIST --table DIR | reinterpret --table DIR | info --table DIR | match --table DIR NAME...")
		return flag.ErrHelp
	}
	return fmt.Errorf("unknown taxonomy command %q (load, reinterpret, info, match)", args[0])
}

// taxonomyFlags are the flags every taxonomy command takes.
type taxonomyFlags struct {
	table, dir *string
}

func addTaxonomyFlags(fs *flag.FlagSet) taxonomyFlags {
	return taxonomyFlags{
		table: fs.String("table", "", "occurrence table directory; its taxonomy lives in DIR/taxonomy"),
		dir:   fs.String("dir", "", "taxonomy directory (instead of --table, required for HBase tables)"),
	}
}

// open opens the checklist of the taxonomy directory.
func (f taxonomyFlags) open() (*taxonomy.Checklist, error) {
	dir, err := f.path()
	if err != nil {
		return nil, err
	}
	return taxonomy.Open(dir)
}

func (f taxonomyFlags) path() (string, error) {
	switch {
	case *f.dir != "":
		return *f.dir, nil
	case *f.table == "":
		return "", errors.New("--table or --dir is required")
	case strings.Contains(*f.table, "://"):
		return "", fmt.Errorf("table %s is not a directory: give the taxonomy directory with --dir", *f.table)
	}
	return taxonomyDir(*f.table, ""), nil
}

// parseInterspersed parses flags that may follow positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func runTaxonomyLoad(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("taxonomy load", env)
	tf := addTaxonomyFlags(fs)
	key := fs.String("key", "", "checklist key when its EML has none (default: the archive's name)")
	title := fs.String("title", "", "checklist title when its EML has none")
	issues := fs.Int("issues", 20, "issues to print (all are counted)")
	reinterpret := fs.Bool("reinterpret", true, "re-interpret the records of --table against the new checklist, published as one new snapshot (HBase: dataset by dataset)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New("usage: downloader taxonomy load CHECKLIST --table DIR")
	}
	dir, err := tf.path()
	if err != nil {
		return err
	}
	rep, err := taxonomy.Load(ctx, dir, pos[0], taxonomy.LoadOptions{Key: *key, Title: *title, Logger: env.Logger,
		MaxIssuesListed: max(*issues, 1)})
	if err != nil {
		return err
	}
	for i, is := range rep.Issues {
		if i >= *issues {
			break
		}
		fmt.Fprintln(env.Stderr, is)
	}
	i := rep.Info
	fmt.Fprintf(env.Stdout, "checklist %s %q version %d: %d usages (%d accepted, %d synonyms, %d implicit), %d issues, keys by %s, %.1fs\n",
		i.Key, i.Title, i.Version, i.Usages, i.Accepted, i.Synonyms, i.Implicit, i.Issues, i.KeyMode, rep.Elapsed.Seconds())
	if !*reinterpret || *tf.table == "" {
		return nil
	}
	return reinterpretTable(ctx, *tf.table, dir, env)
}

// reinterpretTable matches the records of a table again against the
// checklist just published in dir.
func reinterpretTable(ctx context.Context, spec, dir string, env *Env) error {
	t, err := openTable(ctx, spec, env.Logger)
	if errors.Is(err, occurrence.ErrNoTable) {
		fmt.Fprintf(env.Stdout, "table %s holds no records yet: nothing to re-interpret\n", spec)
		return nil
	}
	if err != nil {
		return err
	}
	defer t.Close()
	taxa, err := ingest.OpenTaxa(dir)
	if err != nil {
		return err
	}
	defer taxa.Close()
	res, err := ingest.Reinterpret(ctx, t, taxa)
	if err != nil {
		return fmt.Errorf("re-interpreting %s (the checklist is loaded; run `downloader taxonomy reinterpret` again): %w", spec, err)
	}
	how := "in one snapshot"
	if !res.Atomic {
		how = "dataset by dataset"
	}
	fmt.Fprintf(env.Stdout, "re-interpreted %d records of %d datasets against %s, published %s (snapshot %s), %.1fs\n",
		res.Records, res.Datasets, taxa.Describe(), how, res.Snapshot, res.Elapsed.Seconds())
	printIssues(env, res.Issues)
	return nil
}

func runTaxonomyReinterpret(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("taxonomy reinterpret", env)
	tf := addTaxonomyFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tf.table == "" {
		return errors.New("--table is required")
	}
	dir, err := tf.path()
	if err != nil {
		return err
	}
	return reinterpretTable(ctx, *tf.table, dir, env)
}

func runTaxonomyInfo(args []string, env *Env) error {
	fs := newFlagSet("taxonomy info", env)
	tf := addTaxonomyFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := tf.open()
	if err != nil {
		return err
	}
	defer c.Close()
	return json.NewEncoder(env.Stdout).Encode(c.Info())
}

func runTaxonomyMatch(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("taxonomy match", env)
	tf := addTaxonomyFlags(fs)
	var q taxonomy.Query
	fs.StringVar(&q.Kingdom, "kingdom", "", "the record's kingdom")
	fs.StringVar(&q.Phylum, "phylum", "", "the record's phylum")
	fs.StringVar(&q.Class, "class", "", "the record's class")
	fs.StringVar(&q.Order, "order", "", "the record's order")
	fs.StringVar(&q.Family, "family", "", "the record's family")
	fs.StringVar(&q.Genus, "genus", "", "the record's genus")
	fs.StringVar(&q.Rank, "rank", "", "the record's taxonRank")
	fs.BoolVar(&q.Strict, "strict", false, "no fuzzy or higher-rank matches")
	fs.BoolVar(&q.Verbose, "verbose", false, "list the alternatives considered")
	names, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	c, err := tf.open()
	if err != nil {
		return err
	}
	defer c.Close()
	enc := json.NewEncoder(env.Stdout)
	for _, n := range names {
		q.ScientificName = n
		m, err := c.Match(ctx, q)
		if err != nil {
			return err
		}
		if err := enc.Encode(m); err != nil {
			return err
		}
	}
	return nil
}
