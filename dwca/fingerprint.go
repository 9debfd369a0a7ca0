package dwca

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"slices"
)

// FingerprintRows is how many core rows Fingerprint reads.
const FingerprintRows = 1000

// Fingerprint identifies the archive's data by its content: a SHA-256 of
// the core's row type, the terms of its fields and the values of its first
// FingerprintRows rows (broken rows left out), as "sha256:HEX". It does not
// depend on the archive's file name, compression or folder layout, nor on
// the data's separators, quoting, line ends, column order or encoding: the
// same data published again has the same fingerprint; other data, another
// one. Ingest derives the key of a dataset whose metadata names none from
// it, and tells by it whether a dataset in a table came from the same
// source.
func (a *Archive) Fingerprint(ctx context.Context) (string, error) {
	h := sha256.New()
	core := a.Meta.Core
	io.WriteString(h, core.RowType+"\n")
	terms := make([]string, 0, len(core.Fields))
	for _, f := range core.Fields {
		terms = append(terms, f.Term)
	}
	slices.Sort(terms)
	terms = slices.Compact(terms)
	for _, t := range terms {
		io.WriteString(h, t+"\x1f")
	}
	rr, err := a.Rows(ctx, core)
	if err != nil {
		return "", err
	}
	defer rr.Close()
	for n := 0; n < FingerprintRows; {
		row, err := rr.Next()
		if err == io.EOF {
			break
		}
		var re *RowError
		if errors.As(err, &re) {
			continue
		}
		if err != nil {
			return "", err
		}
		n++
		vals := row.Terms()
		io.WriteString(h, "\n")
		for _, t := range terms {
			if v, ok := vals[t]; ok {
				io.WriteString(h, t+"\x1f"+v+"\x1e")
			}
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
