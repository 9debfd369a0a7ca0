package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

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
		var data []byte
		var err error
		if file == "-" {
			data, err = readAllLimited(env.Stdin)
		} else {
			data, err = os.ReadFile(file)
		}
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

func readAllLimited(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxPredicateBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxPredicateBytes {
		return nil, fmt.Errorf("predicate larger than %d bytes", maxPredicateBytes)
	}
	return data, nil
}
