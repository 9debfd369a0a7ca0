package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// loadPredicate reads the predicate of --query (portal query string) or
// --predicate (a file of GBIF predicate JSON, or a download request holding
// one under "predicate"; "-" reads stdin). Neither means all records.
func loadPredicate(query, file string, env *Env) (*occurrence.Predicate, error) {
	if query != "" && file != "" {
		return nil, errors.New("give --query or --predicate, not both")
	}
	lim := occurrence.DefaultLimits()
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
