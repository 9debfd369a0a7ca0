package dwca

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/pzip"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// The archive writer puts the core first, spooled extensions and entries
// after what was created meanwhile, then meta.xml describing exactly the
// data files it holds (not a spooled entry);
// an omitted extension is neither in the zip nor in meta.xml; the archive
// reads back with this package's reader.
func TestWriterArchive(t *testing.T) {
	var buf bytes.Buffer
	zw, err := pzip.NewWriter(&buf, pzip.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spools := t.TempDir()
	stamp := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	w := NewWriter(zw, WriterOptions{TempDir: spools, Modified: stamp, Metadata: "eml.xml"})
	id := occurrence.NSDwC + "occurrenceID"
	core, err := w.Core(TextFile(occurrence.RowTypeOccurrence, "occurrence.txt", []string{id, occurrence.NSDwC + "locality"}, 0))
	if err != nil {
		t.Fatal(err)
	}
	media, err := w.Extension(TextFile(occurrence.RowTypeMultimedia, "multimedia.txt", []string{occurrence.NSDC + "identifier"}, 1))
	if err != nil {
		t.Fatal(err)
	}
	empty, err := w.Extension(TextFile(occurrence.RowTypeMeasurement, "measurementorfact.txt", []string{occurrence.NSDwC + "measurementType"}, 1))
	if err != nil {
		t.Fatal(err)
	}
	notes, err := w.Spooled("sequences.fasta")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(notes, ">a\nACGT\n")
	ct, mt := NewExclusiveTextWriter(core), NewExclusiveTextWriter(media)
	ct.WriteHeader([]string{"occurrenceID", "locality"})
	mt.WriteHeader([]string{"coreid", "identifier"})
	for i, loc := range []string{"Aarhus", "tab\there"} {
		id := string(rune('a' + i))
		ct.WriteRow([]string{id, loc})
		mt.WriteRow([]string{id, "https://img.example.org/" + id + ".jpg"})
	}
	empty.Omit()
	if err := errors.Join(ct.Flush(), mt.Flush()); err != nil {
		t.Fatal(err)
	}
	if err := w.CreateWith("notes.txt", func(w io.Writer) error { _, err := io.WriteString(w, "before finish"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := w.CreateWith("eml.xml", func(w io.Writer) error { _, err := io.WriteString(w, "<eml/>"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(spools); len(left) != 0 {
		t.Errorf("spools left after Finish: %v", left)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if !f.Modified.Equal(stamp) {
			t.Errorf("%s stamped %s, want %s", f.Name, f.Modified, stamp)
		}
	}
	if got := strings.Join(names, " "); got != "occurrence.txt notes.txt multimedia.txt sequences.fasta meta.xml eml.xml" {
		t.Fatalf("entries %s", got)
	}
	path := t.TempDir() + "/a.zip"
	os.WriteFile(path, buf.Bytes(), 0o644)
	a, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	m := a.Meta
	if m.Metadata != "eml.xml" || len(m.Extensions) != 1 || m.Extensions[0].RowType != occurrence.RowTypeMultimedia ||
		m.Extensions[0].Fields[0].Index != 1 || len(m.Core.Fields) != 2 {
		t.Fatalf("meta.xml %+v", m)
	}
	sr, err := a.Records(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	var got []string
	for {
		r, err := sr.Next()
		if err != nil {
			break
		}
		got = append(got, r.Core[occurrence.NSDwC+"locality"]+"|"+r.Extensions[occurrence.RowTypeMultimedia][0][occurrence.NSDC+"identifier"])
	}
	if strings.Join(got, ",") != "Aarhus|https://img.example.org/a.jpg,tab here|https://img.example.org/b.jpg" {
		t.Fatalf("records read back: %q", got)
	}
	if rc, err := zr.Open("sequences.fasta"); err != nil {
		t.Error(err)
	} else if b, _ := io.ReadAll(rc); string(b) != ">a\nACGT\n" {
		t.Errorf("sequences.fasta = %q", b)
	}
}

// Misuse gives errors, and Abort removes the spools of an archive never
// finished.
func TestWriterErrors(t *testing.T) {
	zw, _ := pzip.NewWriter(io.Discard, pzip.Options{})
	defer zw.Abort()
	spools := t.TempDir()
	w := NewWriter(zw, WriterOptions{TempDir: spools})
	if err := w.Finish(); err == nil {
		t.Error("Finish without a core succeeded")
	}
	spec := TextFile(occurrence.RowTypeOccurrence, "occurrence.txt", []string{occurrence.NSDwC + "occurrenceID"}, 0)
	if _, err := w.Core(spec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Core(spec); err == nil {
		t.Error("a second core was accepted")
	}
	two := spec
	two.Files = []string{"a.txt", "b.txt"}
	if _, err := w.Extension(two); err == nil {
		t.Error("an extension of two files was accepted")
	}
	if _, err := w.Extension(TextFile(occurrence.RowTypeMultimedia, "m.txt", []string{occurrence.NSDC + "identifier"}, 1)); err != nil {
		t.Fatal(err)
	}
	// The spool's file is unlinked while open (internal/tmpfile): it shows
	// only among the process's descriptors, until Abort closes it.
	if left, _ := os.ReadDir(spools); len(left) != 0 && runtime.GOOS != "windows" {
		t.Fatalf("spools named in the directory: %v", left)
	}
	if n, ok := openIn(spools); ok && n != 1 {
		t.Fatalf("%d spools open, want 1", n)
	}
	w.Abort()
	if left, _ := os.ReadDir(spools); len(left) != 0 {
		t.Errorf("spools left after Abort: %v", left)
	}
	if n, ok := openIn(spools); ok && n != 0 {
		t.Errorf("%d spools still open after Abort", n)
	}
	if _, err := w.Extension(spec); !errors.Is(err, errWriterDone) {
		t.Errorf("Extension after Abort: %v", err)
	}
}

// openIn counts the process's open descriptors on files of dir, named or
// unlinked; false where /proc/self/fd does not tell.
func openIn(dir string) (int, bool) {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, false
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(target, dir+string(os.PathSeparator)) {
			n++
		}
	}
	return n, true
}
