package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// limitFlags registers the --predicate-max-* flags, the predicate limits
// (occurrence.Limits), with their defaults.
func limitFlags(fs *flag.FlagSet, lim *occurrence.Limits) {
	def := occurrence.DefaultLimits()
	for _, f := range []struct {
		dst         *int
		def         int
		name, usage string
	}{
		{&lim.MaxValues, def.MaxValues, "values", "values of a predicate (each in value and each other leaf; GBIF's limit)"},
		{&lim.MaxPolygonPoints, def.MaxPolygonPoints, "points", "points of a predicate's polygons (GBIF's limit)"},
		{&lim.MaxDepth, def.MaxDepth, "depth", "nesting of a predicate's and, or and not"},
		{&lim.MaxNodes, def.MaxNodes, "nodes", "predicates in a predicate's tree (and, or, not and leaves)"},
		{&lim.MaxLikes, def.MaxLikes, "likes", "like predicates in a predicate"},
		{&lim.MaxPatternLength, def.MaxPatternLength, "pattern-length", "characters of a like pattern"},
		{&lim.MaxPatternWildcards, def.MaxPatternWildcards, "pattern-wildcards", "wildcards of a like pattern ('?' and runs of '*')"},
		{&lim.MaxCost, def.MaxCost, "cost", "estimated work of a predicate per record (docs/limits.md)"},
	} {
		fs.IntVar(f.dst, "predicate-max-"+f.name, f.def, f.usage)
	}
}

// loadPredicate reads the predicate of --query (portal query string) or
// --predicate (a file of GBIF predicate JSON, or a download request holding
// one under "predicate"; "-" reads stdin). Neither means all records.
func loadPredicate(query, file string, lim occurrence.Limits, env *Env) (*occurrence.Predicate, error) {
	if query != "" && file != "" {
		return nil, errors.New("give --query or --predicate, not both")
	}
	if file != "" {
		data, err := readPredicateFile(file, env.Stdin)
		if err != nil {
			return nil, fmt.Errorf("read predicate: %w", err)
		}
		p, err := occurrence.ParsePredicateJSON(data, lim)
		if err != nil {
			return nil, fmt.Errorf("predicate %s: %w", file, err)
		}
		return p, nil
	}
	if query == "" {
		return nil, nil
	}
	vals, err := url.ParseQuery(strings.TrimPrefix(query, "?"))
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", query, err)
	}
	p, err := occurrence.ParseQuery(vals, lim)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	return p, nil
}

// maxPredicateBytes caps a predicate document read from a file or stdin.
const maxPredicateBytes = 16 << 20

// readPredicateFile reads a predicate document from file ("-": stdin),
// at most maxPredicateBytes of it.
func readPredicateFile(file string, stdin io.Reader) ([]byte, error) {
	r, name := stdin, "stdin"
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r, name = f, file
	}
	return io.ReadAll(zipsafe.Cap(r, maxPredicateBytes, name, "predicate document"))
}
