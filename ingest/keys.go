package ingest

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/abcd"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Dataset keys and origins.
//
// A source's own identifier is its dataset key: a DwC-A's EML
// (alternateIdentifier UUID, else packageId), an ABCD DataSet's
// DatasetGUID; one that does not fit in paths and URLs (a DOI, a URL) is
// hashed into a UUID. A source without one gets a key derived from its
// content, never from its file name or place, so that two different
// datasets saved under the same name stay two datasets and one dataset
// saved under two names stays one:
//   - a DwC-A: its data's fingerprint (dwca.Archive.Fingerprint: the core's
//     terms and first rows);
//   - ABCD: the identity of its metadata (title, owners' names, homepage:
//     what a publisher keeps when republishing; revision dates and contact
//     details are left out), else, with no metadata, its fingerprint.
//
// Every dataset loaded records its origin: Source (the absolute path or
// URL) and Fingerprint (the DwC-A's, or an ABCD source's metadata and
// first unit). Loading replaces the table's dataset of the same key only
// when the origin is the same (same place, or same content anywhere);
// otherwise Load refuses with a *ReplaceError unless Options.Replace.
//
// Keys derived before origins were recorded hashed the title and the file
// name; a dataset the table holds under such a key from the same place
// keeps it (its gbifIDs stay).

// derivedKey makes a UUID-shaped dataset key from a text (a name-based,
// SHA-1 UUID, version 5).
func derivedKey(name string) string {
	sum := sha1.Sum([]byte("downloader dataset:" + name))
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}

// usableKey accepts identifiers that work as dataset keys in paths and URLs
// (a UUID, a short token); a DOI, a URL or a long text is hashed instead.
func usableKey(k string) bool {
	if len(k) > 64 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// keyOf is the dataset key of a source: its own identifier when usable, a
// hash of it otherwise, and when it has none a key derived from identity
// (content or metadata, "kind:value"). derived says the source named none.
func keyOf(own, identity string) (key string, derived bool) {
	switch {
	case own != "" && usableKey(own):
		return own, false
	case own != "":
		return derivedKey(own), false
	}
	return derivedKey(identity), true
}

// legacyKey is the key derived, before origins were recorded, for a source
// without one: from its title and file name.
func legacyKey(title, src string) string {
	return derivedKey(title + "|" + sourceName(src))
}

// sourceName is a source's name without directories and extension.
func sourceName(src string) string {
	base := filepath.Base(strings.TrimRight(src, "/"))
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// originOf is where a source is loaded from as recorded: a URL as given, a
// path made absolute.
func originOf(src string) string {
	if strings.Contains(src, "://") {
		return src
	}
	if abs, err := filepath.Abs(src); err == nil {
		return abs
	}
	return src
}

// sameOrigin reports whether the table's dataset (old) came from where the
// source being loaded (cur) comes from: the same content (Fingerprint) or
// the same place (Source). Older versions recorded the path as given, often
// relative to a working directory now unknown, and no fingerprint: such a
// dataset matches a source of the same file name. A side that records
// neither cannot be told apart and passes.
func sameOrigin(old, cur occurrence.DatasetInfo) bool {
	if old.Fingerprint != "" && old.Fingerprint == cur.Fingerprint {
		return true
	}
	if old.Source == "" && old.Fingerprint == "" || cur.Source == "" && cur.Fingerprint == "" {
		return true
	}
	if old.Fingerprint == "" && !strings.Contains(old.Source, "://") && !filepath.IsAbs(old.Source) {
		return filepath.Base(old.Source) == filepath.Base(cur.Source)
	}
	return old.Source == cur.Source
}

// ErrReplace is the kind of a *ReplaceError.
var ErrReplace = errors.New("would replace a dataset loaded from another source")

// ReplaceError is a load that would replace a dataset the table holds from
// another origin (Options.Replace allows it).
type ReplaceError struct {
	Key      string
	Existing occurrence.DatasetInfo // what the table holds
	Source   string                 // what would replace it
}

func (e *ReplaceError) Error() string {
	from := e.Existing.Source
	if from == "" {
		from = "an unrecorded source"
	}
	if e.Existing.Fingerprint != "" {
		from += " (content " + shortFingerprint(e.Existing.Fingerprint) + ")"
	}
	return fmt.Sprintf("%v: dataset %s (%q, %d records) was loaded from %s on %s, and loading %s would replace it: "+
		"give --replace to replace it, or --dataset-key to load it as another dataset",
		ErrReplace, e.Key, e.Existing.Title, e.Existing.Records, from, e.Existing.Ingested.UTC().Format(time.DateTime), e.Source)
}

func (e *ReplaceError) Unwrap() error { return ErrReplace }

func shortFingerprint(f string) string {
	if len(f) > 19 {
		return f[:19] + "…"
	}
	return f
}

// catalog is what Load asks a table about the dataset it would replace.
type catalog interface {
	Dataset(ctx context.Context, key string) (occurrence.DatasetInfo, error)
}

// checkOrigin refuses to replace a dataset of another origin; it returns
// the key to load under (a legacy key the table holds from the same place
// wins over a newly derived one).
func checkOrigin(ctx context.Context, table catalog, info occurrence.DatasetInfo, legacy string, replace bool) (string, error) {
	if legacy != "" && legacy != info.Key {
		old, err := table.Dataset(ctx, legacy)
		switch {
		case err == nil && old.Fingerprint == "" && sameOrigin(old, info):
			info.Key = legacy
		case err != nil && !errors.Is(err, occurrence.ErrNoDataset):
			return "", err
		}
	}
	old, err := table.Dataset(ctx, info.Key)
	switch {
	case errors.Is(err, occurrence.ErrNoDataset):
		return info.Key, nil
	case err != nil:
		return "", err
	case replace || sameOrigin(old, info):
		return info.Key, nil
	}
	return "", &ReplaceError{Key: info.Key, Existing: old, Source: info.Source}
}

// abcdIdentity is what derives the key of an ABCD dataset without a
// DatasetGUID: its title, owners' names and homepage ("" when the metadata
// has none of them).
func abcdIdentity(m abcd.DatasetMeta) string {
	parts := []string{m.Title, m.Homepage}
	for _, o := range m.Owners {
		parts = append(parts, o.Organisation, o.Abbreviation, o.Person)
	}
	if strings.Join(parts, "") == "" {
		return ""
	}
	return "abcd-metadata:" + strings.Join(parts, "\x1f")
}

// abcdFingerprint identifies an ABCD source by content: all its dataset
// metadata and the terms of its first unit (not the unit's location, which
// names the file).
func abcdFingerprint(m abcd.DatasetMeta, first *occurrence.RawRecord) string {
	h := sha256.New()
	meta, _ := json.Marshal(m) // struct fields in order: deterministic
	h.Write(meta)
	if first != nil {
		keys := make([]string, 0, len(first.Core))
		for k := range first.Core {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			io.WriteString(h, "\n"+k+"\x1f"+first.Core[k])
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
