package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/biodiversity-downloads/downloader/abcd"
	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// OpenOptions tune how sources are opened.
type OpenOptions struct {
	HTTPClient *http.Client
	TempDir    string
	// Dataset picks a dataset by title at a BioCASe endpoint serving several.
	Dataset string
	// Logger receives warnings; nil discards.
	Logger *slog.Logger
	// MaxInputBytes caps each data file of a DwC-A, each ABCD document,
	// and a download (0: dwca.DefaultMaxFileBytes,
	// abcd.DefaultMaxDocumentBytes, both 1 TiB). The other caps keep their
	// defaults (docs/limits.md).
	MaxInputBytes int64
}

// Open opens a source by its name: a DwC-A zip, an unpacked archive folder,
// a lone CSV/TSV file, an http(s) URL of a DwC-A, an ABCD document (.xml,
// .response), an ABCD archive (zip of ABCD documents, .abcda), or a BioCASe
// endpoint "biocase+https://host/pywrapper.cgi?dsa=NAME".
func Open(ctx context.Context, src string, opts OpenOptions) (Source, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = http.DefaultClient
	}
	kind, err := sniff(src)
	if err != nil {
		return nil, err
	}
	if kind == kindABCD {
		return openABCD(ctx, src, opts)
	}
	dopts := dwca.Options{Logger: opts.Logger, TempDir: opts.TempDir, Limits: dwca.Limits{FileBytes: opts.MaxInputBytes}}
	var a *dwca.Archive
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		a, err = dopts.OpenURL(ctx, opts.HTTPClient, src)
	} else {
		a, err = dopts.Open(ctx, src)
	}
	if err != nil {
		return nil, err
	}
	sr, err := a.Records(ctx)
	if err != nil {
		a.Close()
		return nil, err
	}
	// core rows by position: Interpret, the taxon match and the terms the
	// dataset keeps read them without a map per row
	sr.UseCells()
	s, err := newDwCASource(ctx, src, a, sr)
	if err != nil {
		sr.Close()
		a.Close()
		return nil, err
	}
	return s, nil
}

type sourceKind int

const (
	kindDwCA sourceKind = iota
	kindABCD
)

// sniff tells ABCD inputs from Darwin Core Archives.
func sniff(src string) (sourceKind, error) {
	if strings.HasPrefix(src, "biocase+") {
		return kindABCD, nil
	}
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		return kindDwCA, nil
	}
	st, err := os.Stat(src)
	if err != nil {
		return 0, fmt.Errorf("source %s: %w", src, err)
	}
	if st.IsDir() {
		return kindDwCA, nil
	}
	switch strings.ToLower(filepath.Ext(src)) {
	case ".xml", ".response", ".abcda":
		return kindABCD, nil
	case ".zip":
		return sniffZip(src)
	}
	return kindDwCA, nil
}

// sniffZip calls a zip an ABCD archive when the files the DwC-A reader would
// see (dwca.VisibleFiles: no __MACOSX/, no dot-files) include XML documents
// and no meta.xml or delimited text file.
func sniffZip(src string) (sourceKind, error) {
	zr, err := zip.OpenReader(src)
	if err != nil {
		return kindDwCA, nil // let the archive reader report what is wrong
	}
	defer zr.Close()
	names, err := dwca.VisibleFiles(zr)
	if err != nil {
		return kindDwCA, nil
	}
	xmls := 0
	for _, n := range names {
		name := strings.ToLower(path.Base(n))
		switch {
		case name == "meta.xml" || strings.HasSuffix(name, ".txt") || strings.HasSuffix(name, ".csv") || strings.HasSuffix(name, ".tsv"):
			return kindDwCA, nil
		case strings.HasSuffix(name, ".xml") || strings.HasSuffix(name, ".response"):
			if name != "eml.xml" && name != "metadata.xml" {
				xmls++
			}
		}
	}
	if xmls > 0 {
		return kindABCD, nil
	}
	return kindDwCA, nil
}

// dwcaSource adapts a Darwin Core Archive.
type dwcaSource struct {
	a      *dwca.Archive
	sr     *dwca.StarReader
	ds     occurrence.DatasetInfo
	legacy string // the key older versions derived, when the archive names none
	eml    []byte // nil: the archive has no readable EML
}

// newDwCASource describes the archive's dataset from its EML (an EML over
// its cap is an error; an unreadable one is kept as it is, metadata being
// optional) and its content (see keys.go).
func newDwCASource(ctx context.Context, src string, a *dwca.Archive, sr *dwca.StarReader) (*dwcaSource, error) {
	s := &dwcaSource{a: a, sr: sr, ds: occurrence.DatasetInfo{Title: sourceName(src), Source: originOf(src), Protocol: "DWC_ARCHIVE"}}
	r, err := a.EML()
	if errors.Is(err, dwca.ErrTooLarge) {
		return nil, err
	}
	if err == nil {
		data, rerr := io.ReadAll(r)
		r.Close()
		if errors.Is(rerr, dwca.ErrTooLarge) {
			return nil, rerr
		}
		if rerr == nil {
			if info, err := dwca.ReadDatasetInfo(bytes.NewReader(data)); err == nil {
				s.ds.Key, s.ds.License, s.ds.Citation = info.Key, info.License, info.Citation
				if info.Title != "" {
					s.ds.Title = info.Title
				}
			}
			s.eml = data
		}
	}
	fp, err := a.Fingerprint(ctx)
	if err != nil {
		return nil, err
	}
	s.ds.Fingerprint = fp
	var derived bool
	if s.ds.Key, derived = keyOf(s.ds.Key, "dwca-content:"+fp); derived {
		s.legacy = legacyKey(s.ds.Title, src)
	}
	return s, nil
}

func (s *dwcaSource) legacyKey() string { return s.legacy }

func (s *dwcaSource) Dataset() occurrence.DatasetInfo { return s.ds }

func (s *dwcaSource) EML() (io.ReadCloser, error) {
	if s.eml == nil {
		return nil, occurrence.ErrNoEML
	}
	return io.NopCloser(bytes.NewReader(s.eml)), nil
}

func (s *dwcaSource) Next(ctx context.Context) (occurrence.RawRecord, error) {
	return s.sr.Next()
}

// recycle hands a record's core terms back to the archive reader for a
// later row (a recycler).
func (s *dwcaSource) recycle(raw occurrence.RawRecord) {
	if raw.Cells != nil {
		s.sr.RecycleCells(raw.Cells)
		return
	}
	s.sr.Recycle(raw.Core)
}

// Broken reports the rows the archive reader skipped.
func (s *dwcaSource) Broken() (int64, []string) {
	b := s.sr.Broken()
	list := make([]string, 0, len(b.Rows))
	for _, r := range b.Rows {
		list = append(list, r.Error())
	}
	return int64(b.Count), list
}

func (s *dwcaSource) Close() error {
	err := s.sr.Close()
	if cerr := s.a.Close(); err == nil {
		err = cerr
	}
	return err
}

// abcdSource adapts ABCD documents, archives and BioCASe endpoints. The
// dataset's metadata arrives with the first document, so Open reads ahead
// one record.
type abcdSource struct {
	s       *abcd.Source
	src     string
	peeked  *occurrence.RawRecord
	peekErr error
	ds      occurrence.DatasetInfo
	legacy  string // the key older versions derived, when the source names none
}

func openABCD(ctx context.Context, src string, opts OpenOptions) (*abcdSource, error) {
	s, err := abcd.OpenSource(ctx, src, abcd.SourceOptions{Dataset: opts.Dataset, TempDir: opts.TempDir, Logger: opts.Logger,
		Reader: abcd.Options{MaxDocumentBytes: opts.MaxInputBytes}})
	if err != nil {
		return nil, err
	}
	a := &abcdSource{s: s, src: src}
	r, err := s.Next(ctx)
	if err != nil {
		a.peekErr = err
	} else {
		a.peeked = &r
	}
	a.describe()
	return a, nil
}

// describe makes the dataset's description from the metadata of the first
// document and the first unit (see keys.go for the key).
func (a *abcdSource) describe() {
	m := a.s.Dataset()
	ds := occurrence.DatasetInfo{Key: m.GUID, Title: m.Title, License: m.License(), Citation: m.Citation, Source: originOf(a.src),
		Protocol: abcdProtocol(a.src), Fingerprint: abcdFingerprint(m, a.peeked)}
	if ds.Title == "" {
		ds.Title = sourceName(a.src)
	}
	identity := abcdIdentity(m)
	if identity == "" {
		identity = "abcd-content:" + ds.Fingerprint
	}
	var derived bool
	if ds.Key, derived = keyOf(ds.Key, identity); derived {
		a.legacy = legacyKey(ds.Title, a.src)
	}
	a.ds = ds
}

func (a *abcdSource) Dataset() occurrence.DatasetInfo { return a.ds }

func (a *abcdSource) legacyKey() string { return a.legacy }

// EML is the dataset's metadata as an EML document made from the ABCD
// metadata of the first document.
func (a *abcdSource) EML() (io.ReadCloser, error) {
	var buf bytes.Buffer
	if err := abcd.WriteEML(&buf, a.s.Dataset()); err != nil {
		return nil, err
	}
	return io.NopCloser(&buf), nil
}

// abcdProtocol names, as GBIF's EndpointType does, how ABCD records were
// published: a BioCASe endpoint or one of its responses (BIOCASE), or an
// ABCD archive (BIOCASE_XML_ARCHIVE).
func abcdProtocol(src string) string {
	switch strings.ToLower(filepath.Ext(src)) {
	case ".zip", ".abcda":
		return "BIOCASE_XML_ARCHIVE"
	}
	return "BIOCASE"
}

func (a *abcdSource) Next(ctx context.Context) (occurrence.RawRecord, error) {
	if a.peeked != nil {
		r := *a.peeked
		a.peeked = nil
		return r, nil
	}
	if a.peekErr != nil {
		err := a.peekErr
		a.peekErr = nil
		return occurrence.RawRecord{}, err
	}
	return a.s.Next(ctx)
}

// firstFailure is the error of the first document that failed (nil if none).
func (a *abcdSource) firstFailure() error {
	if probs := a.s.Problems(); len(probs) > 0 {
		return probs[0].Err
	}
	return nil
}

// Broken reports the documents that failed while others were read.
func (a *abcdSource) Broken() (int64, []string) {
	probs := a.s.Problems()
	list := make([]string, 0, len(probs))
	for _, p := range probs {
		list = append(list, p.Error())
	}
	return int64(a.s.Stats().FailedDocuments), list
}

func (a *abcdSource) Close() error { return a.s.Close() }
